"""The answer-size report: summaries and the run's header -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.answer_size.compute import FormSummary
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    run: RunStamp
    index: str
    pipeline: str
    size: int


def render_report(header: Header, forms: Sequence[FormSummary]) -> str:
    rows = [
        [
            f.form,
            str(f.answers),
            f"{f.median_bytes / 1024:.1f}",
            f"{f.median_bytes_per_hit / 1024:.2f}",
            f"{f.p50_ms:.1f}",
            f"{f.p95_ms:.1f}",
        ]
        for f in forms
    ]
    by_form = {f.form: f for f in forms}
    lines = [
        *report_opening(
            f"Answer size: `{header.index}` through `{header.pipeline}`, {header.size} hits",
            header.run,
            [
                "- each query sent twice, whole and lean `_source` (order alternating per query); bytes are "
                "the response body; milliseconds client-side, keep-alive session"
            ],
        ),
        *markdown_table(
            ["_source", "answers", "median KiB", "median KiB / hit", "P50 ms", "P95 ms"], rows, align="lrrrrr"
        ),
    ]
    if "whole" in by_form and "lean" in by_form and by_form["whole"].median_bytes:
        whole, lean = by_form["whole"], by_form["lean"]
        lines += [
            "",
            f"The lean answer is {lean.median_bytes / whole.median_bytes:.0%} of the whole one's bytes "
            f"(median); P50 {lean.p50_ms:.1f} vs {whole.p50_ms:.1f} ms.",
        ]
    return "\n".join([*lines, ""])
