"""The fair-use benchmark's pure parts: how questions are shared between the idle and busy runs, and the
verdict of its report."""

from __future__ import annotations

from collections import Counter

from benchmarks.clinical_pipelines.compute import Latency
from benchmarks.fair_use.cli import split_runs
from benchmarks.fair_use.report import Findings, render_report
from benchmarks.run_stamp import RunStamp

RUN = RunStamp(command="python -m x", machine="vm", date="2026-11-27", load_before=1.0, load_after=2.0)


def test_questions_alternate_between_the_runs_in_rounds_and_none_is_asked_twice() -> None:
    idle, busy = split_runs([f"q{i}" for i in range(12)], rounds=3)
    assert idle == [["q0", "q2"], ["q4", "q6"], ["q8", "q10"]]
    assert busy == [["q1", "q3"], ["q5", "q7"], ["q9", "q11"]]


def _findings(idle_p95: float, busy_p95: float, whole_busy: int) -> Findings:
    return Findings(
        idle=Latency(n=10, p50=100, p95=idle_p95),
        busy=Latency(n=10, p50=120, p95=busy_p95),
        whole_idle=10,
        whole_busy=whole_busy,
        abusive=Counter({200: 3, 429: 9}),
        lost=Counter({"dense_timeout": 2}) if whole_busy < 10 else Counter(),
        threads=8,
        chars=2000,
        rounds=3,
        key_limits="{}",
    )


def test_the_verdict_needs_the_p95_ratio_and_every_component() -> None:
    assert "P95 during the burst / idle: 1.50 (target <= 1.5" in render_report(_findings(200, 300, 10), RUN)
    assert "**met**" in render_report(_findings(200, 300, 10), RUN)
    assert "**MISSED**" in render_report(_findings(200, 302, 10), RUN)  # 1.51
    assert "**MISSED**" in render_report(_findings(200, 220, 9), RUN)  # one search lost a component
    assert "lost: dense_timeout x2." in render_report(_findings(200, 220, 9), RUN)
    assert "lost: none." in render_report(_findings(200, 220, 10), RUN)
    assert "8 threads of 2,000-character questions" in render_report(_findings(200, 220, 10), RUN)
    assert "its answers: 200: 3, 429: 9" in render_report(_findings(200, 220, 10), RUN)
