"""The clinical-understanding report renders what was measured, no more."""

from __future__ import annotations

from benchmarks.clinical_understanding.compute import Verdict
from benchmarks.clinical_understanding.measure import SplitRun
from benchmarks.clinical_understanding.report import Findings, render_report
from benchmarks.run_stamp import RunStamp
from control_plane.clinical.intent_quality import Counts
from control_plane.testsets.catalog import Query

QUERIES = (
    Query("q1", "eligibility for breast cancer trials", {"intents": ["eligibility"], "form": "topic"}),
    Query("q2", "breast cancer", {"intents": [], "form": "topic"}),
)


def test_the_report_lists_targets_groups_and_detection() -> None:
    run = SplitRun(
        "clinical-natural/test",
        "rrf",
        QUERIES,
        {"/v1/search off": {"q1": 0.5, "q2": 1.0}, "/v1/search on": {"q1": 0.9, "q2": 1.0}},
    )
    findings = Findings(
        runs=(run,),
        detection={"clinical-natural/test": {"all": Counts(1, 0, 0), "eligibility": Counts(1, 0, 0)}},
        verdicts=(Verdict("overall nDCG@10 >= 0.78", "0.9500", True), Verdict("x", "y", False)),
        verdict_split="clinical-natural/test",
    )
    context = RunStamp("python -m x", "2 cores", "2026-11-26", 0.5, 0.6)
    text = render_report(findings, context, "chunks-clinical")
    assert "| overall nDCG@10 >= 0.78 | 0.9500 | met |" in text
    assert "| x | y | MISSED |" in text
    assert "| all | 2 | 0.7500 | 0.9500 |" in text
    assert "| intent:eligibility | 1 | 0.5000 | 0.9000 |" in text
    assert "| form:topic | 2 | 0.7500 | 0.9500 |" in text
    assert "| eligibility | 1 | 0 | 0 | 1.000 | 1.000 |" in text
    assert "rrf: /v1/search on" in text


def test_named_record_questions_answered_in_the_top_3_are_counted_per_ranking() -> None:
    named = (
        Query("n1", "NCT01642004 adverse events", {"intents": ["adverse_events"], "form": "named_record"}),
        Query("n2", "NCT01207388", {"intents": [], "form": "named_record"}),
    )
    run = SplitRun(
        "clinical-fresh/dev",
        "weighted",
        named,
        {"/v1/search on": {"n1": 1.0, "n2": 0.5}},
        {"/v1/search on": {"n1": True, "n2": False}},
    )
    findings = Findings((run,), {"clinical-fresh/dev": {"all": Counts(1, 0, 0)}}, (), "clinical-fresh/dev")
    text = render_report(findings, RunStamp("python -m x", "2 cores", "2026-11-27", 0.5, 0.6), "i")
    assert "named-record questions answered in the top 3" in text
    assert "| weighted: /v1/search on |" in text and "| 1/2 |" in text
