"""promtool over the shipped rules: ``check rules`` (syntax, PromQL) and ``test rules`` (rules.test.yml's
synthetic histories), with their output kept for the caller to show."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from control_plane.monitoring.assets import RULES_FILE, RULES_TEST_FILE
from control_plane.monitoring.tool import PrometheusTool


@dataclass(frozen=True)
class PromtoolResult:
    command: str
    returncode: int
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def promtool(tool: PrometheusTool, *args: str, cwd: Path | None = None) -> PromtoolResult:
    done = subprocess.run([str(tool.promtool), *args], capture_output=True, text=True, check=False, cwd=cwd)
    return PromtoolResult(f"promtool {' '.join(args)}", done.returncode, (done.stdout + done.stderr).strip())


def check_rules(tool: PrometheusTool, rules: Path = RULES_FILE) -> PromtoolResult:
    return promtool(tool, "check", "rules", str(rules))


def run_rule_tests(tool: PrometheusTool, tests: Path = RULES_TEST_FILE) -> PromtoolResult:
    """Run from the tests' folder: rules.test.yml names rules.yml relative to itself."""
    return promtool(tool, "test", "rules", tests.name, cwd=tests.parent)
