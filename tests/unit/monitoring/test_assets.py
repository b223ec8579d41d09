"""The shipped rules and dashboard hold what the specification asks for (their behaviour is tested with
promtool and a real Prometheus in tests/integration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.monitoring.assets import (
    MonitoringAssetError,
    alert_rules,
    dashboard,
    package_pin,
    panel_queries,
)
from control_plane.monitoring.local import render_config

SPEC_PANELS = [
    "Latency by component (P50 / P95 / P99)",
    "Recall@10 trend",
    "nDCG@10 by fusion method",
    "Component contribution",
    "Rerank impact",
    "Table routing rate",
    "Boost application rate",
]


def test_the_seven_panels() -> None:
    board = dashboard()
    assert [panel["title"] for panel in board["panels"]] == SPEC_PANELS
    assert len({panel["id"] for panel in board["panels"]}) == 7
    latency = [q.legend for q in panel_queries(board) if q.panel == SPEC_PANELS[0]]
    assert {"{{component}} P50", "{{component}} P95", "{{component}} P99"} <= set(latency)


def test_rollback_triggers_and_their_periods() -> None:
    rules = {rule.name: rule for rule in alert_rules()}
    assert {name: rule.for_ for name, rule in rules.items()} == {
        "BiohybridHybridSearchP95High": "10m",
        "BiohybridRecallBelowBaseline": "15m",
        "BiohybridErrorRateHigh": "5m",
        "BiohybridRerankFallbackRateHigh": "10m",
    }
    assert "> 0.5" in rules["BiohybridHybridSearchP95High"].expr
    assert "> 0.05" in rules["BiohybridErrorRateHigh"].expr
    assert "biohybrid_inference_requests_total" in rules["BiohybridErrorRateHigh"].expr


def test_the_prometheus_pin_is_a_sha256() -> None:
    pin = package_pin()
    assert len(pin["sha256"]) == 64 and int(pin["sha256"], 16) >= 0
    assert pin["url"].endswith(f"{pin['package']}_{pin['version']}_{pin['architecture']}.deb")


def test_a_broken_file_names_itself(tmp_path: Path) -> None:
    broken = tmp_path / "board.json"
    broken.write_text("{not json")
    with pytest.raises(MonitoringAssetError, match=r"board\.json is not valid json"):
        dashboard(broken)
    with pytest.raises(MonitoringAssetError, match="cannot read"):
        alert_rules(tmp_path / "absent.yml")


def test_render_config() -> None:
    config = render_config({"api": ["127.0.0.1:8600"]}, [Path("/r.yml")], interval_s=1)
    assert config == {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": ["/r.yml"],
        "scrape_configs": [
            {
                "job_name": "api",
                "metrics_path": "/metrics",
                "static_configs": [{"targets": ["127.0.0.1:8600"]}],
            }
        ],
    }
