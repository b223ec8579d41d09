"""The rerank-latency report: the summary and a run header -> markdown (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.rerank_latency.compute import Latency, Summary
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """The run, and what was timed."""

    run: RunStamp
    model: str
    model_weight: float
    pipeline: str
    index: str
    test_set: str
    plot_name: str


def _row(step: str, latency: Latency) -> list[str]:
    if latency.p50 is None or latency.p95 is None:
        return [step, str(latency.n), "", ""]
    return [step, str(latency.n), f"{latency.p50:.0f}", f"{latency.p95:.0f}"]


def render_report(summary: Summary, header: Header) -> str:
    rows = [_row("search without rerank", summary.search)]
    rows += [_row(f"rerank depth {depth}", latency) for depth, latency in summary.rerank]
    timed = (
        f"- model {header.model} (weight {header.model_weight}), pipeline {header.pipeline} on "
        f"{header.index}, {summary.search.n} {header.test_set} queries (one warm-up not counted). A reranked "
        "search costs the search plus the rerank call (OpenSearch adds its processor's own small overhead)."
    )
    lines = [
        *report_opening("Rerank latency per depth", header.run, [timed]),
        *markdown_table(["step", "n", "P50 ms", "P95 ms"], rows),
        "",
        f"![rerank latency per depth]({header.plot_name})",
    ]
    return "\n".join(lines) + "\n"
