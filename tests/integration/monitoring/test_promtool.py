"""The alert rules through promtool, the tool Prometheus itself uses: they load, their unit tests
(ops/prometheus/rules.test.yml) pass, a rule with a wrong threshold fails them, and every dashboard query
is valid PromQL."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from control_plane.monitoring.assets import RULES_FILE, RULES_TEST_FILE, dashboard, panel_queries
from control_plane.monitoring.checks import check_rules, run_rule_tests
from control_plane.monitoring.tool import PrometheusTool, fetch_prometheus


@pytest.fixture(scope="module")
def tool() -> PrometheusTool:
    return fetch_prometheus()


def test_rules_load(tool: PrometheusTool) -> None:
    result = check_rules(tool)
    assert result.ok, result.output
    assert "SUCCESS: 4 rules found" in result.output


def test_rule_unit_tests_pass(tool: PrometheusTool) -> None:
    result = run_rule_tests(tool)
    assert result.ok, result.output
    assert "SUCCESS" in result.output


def test_a_wrong_threshold_fails_the_rule_tests(tool: PrometheusTool, tmp_path: Path) -> None:
    shutil.copy(RULES_TEST_FILE, tmp_path / RULES_TEST_FILE.name)
    rules = RULES_FILE.read_text().replace(") > 0.05", ") > 0.5")
    assert rules != RULES_FILE.read_text()
    (tmp_path / RULES_FILE.name).write_text(rules)
    result = run_rule_tests(tool, tmp_path / RULES_TEST_FILE.name)
    assert not result.ok and "BiohybridErrorRateHigh" in result.output


def test_every_dashboard_query_is_valid_promql(tool: PrometheusTool, tmp_path: Path) -> None:
    queries = panel_queries(dashboard())
    rules = [{"record": f"panel:query{i}", "expr": q.expr} for i, q in enumerate(queries)]
    path = tmp_path / "panels.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "panels", "rules": rules}]}))
    result = check_rules(tool, path)
    assert result.ok, result.output
    assert f"SUCCESS: {len(queries)} rules found" in result.output
