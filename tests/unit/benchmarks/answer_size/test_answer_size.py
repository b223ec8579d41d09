"""The answer-size benchmark's request forms, summaries and report, checked by hand."""

from __future__ import annotations

from benchmarks.answer_size.compute import Answer, body, summarise
from benchmarks.answer_size.report import Header, render_report
from benchmarks.run_stamp import RunStamp


def test_only_the_lean_form_leaves_the_vectors_out() -> None:
    assert "_source" not in body("warfarin", 10, "whole")
    assert body("warfarin", 10, "lean")["_source"] == {"excludes": ["embedding", "sparse_terms"]}
    assert body("warfarin", 10, "lean")["query"] == body("warfarin", 10, "whole")["query"]


ANSWERS = [
    Answer("whole", 12_000, 10.0, 10),
    Answer("lean", 2_000, 8.0, 10),
    Answer("whole", 14_000, 30.0, 10),
    Answer("lean", 2_400, 6.0, 8),
]


def test_summaries_take_medians_per_form() -> None:
    whole, lean = summarise(ANSWERS)
    assert (whole.form, whole.answers, whole.median_bytes, whole.median_bytes_per_hit) == (
        "whole",
        2,
        13_000,
        1_300,
    )
    assert (lean.median_bytes, lean.median_bytes_per_hit) == (2_200, 250)  # per hit: 200 and 300
    assert (lean.p50_ms, lean.p95_ms) == (6.0, 8.0)  # nearest rank


def test_the_report_states_the_saving() -> None:
    header = Header(RunStamp("cmd", "host", "2026-11-23", 0.5, 0.7), "chunks-x", "hybrid-rrf", 10)
    text = render_report(header, summarise(ANSWERS))
    assert "| whole | 2 | 12.7 | 1.27 | 10.0 | 30.0 |" in text
    assert "The lean answer is 17% of the whole one's bytes (median); P50 6.0 vs 10.0 ms." in text
