"""A local Prometheus over the running services: its configuration rendered as data (scrape targets by
job, the alert rules loaded), and the server run in the background with a pid file, the way the project
runs its other local services. For operators' laptops and the integration test; a production Prometheus
takes ops/prometheus/rules.yml into its own configuration."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from control_plane import background
from control_plane.errors import UnavailableError
from control_plane.monitoring.tool import PrometheusTool

_READY_TIMEOUT_S: Final = 60.0
_NAME: Final = "prometheus"


class PrometheusApiError(UnavailableError):
    """Prometheus' HTTP API answered with an error status (the message carries its error)."""


def render_config(
    targets: Mapping[str, Sequence[str]], rule_files: Sequence[Path], interval_s: float = 15.0
) -> dict[str, Any]:
    """prometheus.yml as data: one scrape job per ``targets`` key (``host:port`` each, /metrics), the
    rules evaluated at the scrape interval."""
    interval = f"{interval_s:g}s"
    return {
        "global": {"scrape_interval": interval, "evaluation_interval": interval},
        "rule_files": [str(path) for path in rule_files],
        "scrape_configs": [
            {"job_name": job, "metrics_path": "/metrics", "static_configs": [{"targets": list(hosts)}]}
            for job, hosts in targets.items()
        ],
    }


@dataclass(frozen=True)
class LocalPrometheus:
    url: str
    state_dir: Path
    pid: int

    def query(self, expr: str) -> list[dict[str, Any]]:
        """An instant query through the HTTP API: its result vector (``[]``: no data)."""
        data = self._get("/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        return list(data["result"])

    def alerts(self) -> list[dict[str, Any]]:
        """Pending and firing alerts."""
        return list(self._get("/api/v1/alerts")["alerts"])

    def rules(self) -> list[dict[str, Any]]:
        return [rule for group in self._get("/api/v1/rules")["groups"] for rule in group["rules"]]

    def targets(self) -> list[dict[str, Any]]:
        return list(self._get("/api/v1/targets")["activeTargets"])

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as answer:
            body = json.loads(answer.read())
        if body.get("status") != "success":
            raise PrometheusApiError(f"{path}: {body.get('error', body)}")
        return body["data"]


def start_prometheus(
    tool: PrometheusTool, config: Mapping[str, Any], state_dir: Path, port: int
) -> LocalPrometheus:
    """Write the configuration under ``state_dir`` and start the server on 127.0.0.1:``port`` in the
    background (pid in ``state_dir/prometheus.pid``, log in ``prometheus.log``); waits until ready."""
    state_dir.mkdir(parents=True, exist_ok=True)
    config_file = state_dir / "prometheus.yml"
    config_file.write_text(yaml.safe_dump(dict(config), sort_keys=False), encoding="utf-8")
    command = [
        str(tool.prometheus),
        f"--config.file={config_file}",
        f"--storage.tsdb.path={state_dir / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--web.enable-lifecycle",
    ]
    process = background.spawn(command, state_dir, _NAME)
    url = f"http://127.0.0.1:{port}"
    try:
        background.wait_ready(
            url, process, state_dir, _READY_TIMEOUT_S, name=_NAME, path="/-/ready", what="Prometheus"
        )
    except background.ServiceStartError:
        stop_prometheus(state_dir)
        raise
    return LocalPrometheus(url, state_dir, process.pid)


def stop_prometheus(state_dir: Path) -> bool:
    """Stop the server whose pid file is in ``state_dir``; False when none ran."""
    return background.stop(state_dir, _NAME)
