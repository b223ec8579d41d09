"""The rerank-latency report: the summary and a run header -> markdown (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from benchmarks.rerank_latency.compute import Latency, Summary
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """What was timed, how the benchmark was run, where (load before and after), when, how long."""

    arguments: str
    machine: str
    load_before: float
    load_after: float
    date: datetime
    seconds: float
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
    lines = [
        "# Rerank latency per depth",
        "",
        "Command: `BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        f"python -m benchmarks.rerank_latency {header.arguments}`",
        f"Machine: {header.machine}; load average {header.load_before:.1f} before, "
        f"{header.load_after:.1f} after; {header.date:%Y-%m-%d %H:%M} UTC; {header.seconds:.0f} s.",
        f"Model {header.model} (weight {header.model_weight}), pipeline {header.pipeline} on {header.index}, "
        f"{summary.search.n} {header.test_set} queries (one warm-up not counted). A reranked search costs "
        "the search plus the rerank call (OpenSearch adds its processor's own small overhead).",
        "",
        *markdown_table(["step", "n", "P50 ms", "P95 ms"], rows),
        "",
        f"![rerank latency per depth]({header.plot_name})",
    ]
    return "\n".join(lines) + "\n"
