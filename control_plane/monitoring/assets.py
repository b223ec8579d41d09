"""The monitoring files in ops/ (a checkout's, not the wheel's): alert rules, their promtool tests, the
Grafana dashboard and the Prometheus package pin; read as data, never edited here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from control_plane.errors import BiohybridError
from control_plane.locations import REPOSITORY_ROOT

OPS_DIR: Final = REPOSITORY_ROOT / "ops"
RULES_FILE: Final = OPS_DIR / "prometheus" / "rules.yml"
RULES_TEST_FILE: Final = OPS_DIR / "prometheus" / "rules.test.yml"
PACKAGE_PIN_FILE: Final = OPS_DIR / "prometheus" / "prometheus-package.json"
DASHBOARD_FILE: Final = OPS_DIR / "grafana" / "biohybrid-dashboard.json"


class MonitoringAssetError(BiohybridError):
    """A monitoring file is missing or malformed (the message names it and what is wrong)."""


@dataclass(frozen=True)
class AlertRule:
    name: str
    expr: str
    for_: str
    labels: dict[str, str]


@dataclass(frozen=True)
class PanelQuery:
    panel: str
    ref_id: str
    expr: str
    legend: str


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MonitoringAssetError(f"cannot read {path}: {exc.strerror} (run from a checkout)") from None
    try:
        return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise MonitoringAssetError(f"{path} is not valid {path.suffix[1:]}: {exc}") from None


def alert_rules(path: Path = RULES_FILE) -> tuple[AlertRule, ...]:
    """Every alerting rule of every group, in file order."""
    data = _read(path)
    return tuple(
        AlertRule(rule["alert"], rule["expr"], rule.get("for", "0s"), dict(rule.get("labels", {})))
        for group in data.get("groups", [])
        for rule in group.get("rules", [])
        if "alert" in rule
    )


def dashboard(path: Path = DASHBOARD_FILE) -> dict[str, Any]:
    data = _read(path)
    if not isinstance(data, dict) or not isinstance(data.get("panels"), list):
        raise MonitoringAssetError(f"{path} is not a Grafana dashboard (no `panels` list)")
    return data


def panel_queries(board: dict[str, Any]) -> tuple[PanelQuery, ...]:
    """Each panel target's PromQL, with its panel title (rows and text panels have none)."""
    return tuple(
        PanelQuery(panel["title"], target.get("refId", ""), target["expr"], target.get("legendFormat", ""))
        for panel in board["panels"]
        for target in panel.get("targets", [])
        if target.get("expr")
    )


def package_pin(path: Path = PACKAGE_PIN_FILE) -> dict[str, Any]:
    data = _read(path)
    missing = {"package", "version", "architecture", "url", "sha256"} - set(data)
    if missing:
        raise MonitoringAssetError(f"{path} lacks {sorted(missing)}")
    return dict(data)
