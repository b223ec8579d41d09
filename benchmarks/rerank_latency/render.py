"""The rerank-latency plot: the rerank call's P50 and P95 against the depth."""

from __future__ import annotations

from pathlib import Path

from benchmarks.rerank_latency.compute import Summary
from control_plane.reports.figures import new_figure, save_figure


def _ms(value: float | None) -> float:
    return float("nan") if value is None else value  # no sample at that depth: a gap in the line


def plot(summary: Summary, path: Path) -> None:
    depths = [depth for depth, _ in summary.rerank]
    figure = new_figure(6, 3.6)
    axes = figure.add_subplot(1, 1, 1)
    axes.plot(depths, [_ms(latency.p50) for _, latency in summary.rerank], marker="o", label="P50")
    axes.plot(depths, [_ms(latency.p95) for _, latency in summary.rerank], marker="o", label="P95")
    axes.set_xlabel("rerank depth (pairs scored)")
    axes.set_ylabel("rerank call, ms")
    axes.legend()
    save_figure(figure, path)
