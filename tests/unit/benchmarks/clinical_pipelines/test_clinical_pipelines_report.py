"""The clinical-pipelines report renders what it is given: tables, and a verdict per target."""

from __future__ import annotations

from benchmarks.clinical_pipelines.compute import Latency, Verdict
from benchmarks.clinical_pipelines.measure import Relevance
from benchmarks.clinical_pipelines.report import Findings, render_report
from benchmarks.run_stamp import RunStamp


def test_the_report_shows_each_path_and_marks_a_missed_target() -> None:
    findings = Findings(
        relevance=(
            Relevance("clinical/dev", "rrf", 140, {"(a) README query": 0.5, "(b) clinical pipeline": 0.6}),
        ),
        latency={"hybrid": Latency(99, 40.0, 80.0), "clinical": Latency(99, 50.0, 120.0)},
        throughput={"hybrid": {1: 20.0, 4: 30.5}, "clinical": {1: 10.0, 4: 15.25}},
        verdicts=(Verdict("P95 added <= 15 ms", "120 - 80 = +40 ms", False),),
        latency_questions="99 clinical/dev questions",
    )
    context = RunStamp("prog --split clinical/dev", "vm, 2 CPU cores", "2026-11-26 10:00 UTC", 0.5, 1.5)
    text = render_report(findings, context, "chunks-clinical")
    assert "| clinical/dev | rrf | 140 | 0.5000 | 0.6000 |" in text
    assert "| clinical | 99 | 50 | 120 |" in text
    assert "| hybrid | 20.0 | 30.5 |" in text
    assert "| P95 added <= 15 ms | 120 - 80 = +40 ms | MISSED |" in text
    assert "`prog --split clinical/dev`" in text
