"""The latency plot: one empirical CDF per mode."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.query_cache.measure import Sample
from control_plane.reports.figures import new_figure, save_figure


def plot_ecdf(samples: Sequence[Sample], modes: Sequence[str], path: Path) -> None:
    figure = new_figure(6.5, 4.0)
    axes = figure.add_subplot(1, 1, 1)
    for mode in modes:
        values = sorted(s.ms for s in samples if s.mode == mode and s.ms is not None)
        if values:
            axes.step(values, [(i + 1) / len(values) for i in range(len(values))], where="post", label=mode)
    axes.set_xscale("log")
    axes.set_xlabel("POST /v1/search latency (ms, log scale)")
    axes.set_ylabel("fraction of requests")
    axes.set_title("Query cache: latency by mode (same Zipf-drawn sequence)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    save_figure(figure, path)
