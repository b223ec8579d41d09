"""The search latency plot: one panel per path, the latency ECDF of each configuration."""

from __future__ import annotations

from pathlib import Path

from benchmarks.search_latency.samples import SPEC_BARS_MS, RunRecord
from control_plane.reports.figures import new_figure, save_figure


def plot_ecdf(run: RunRecord, path: Path) -> None:
    """One panel per path: the latency ECDF of each configuration, with the spec's bars."""
    figure = new_figure(5.0 * len(run.paths), 4.2)
    for position, route in enumerate(run.paths, start=1):
        axes = figure.add_subplot(1, len(run.paths), position)
        for configuration in run.configurations:
            values = sorted(s.ms for s in run.of(route, configuration.name) if s.ms is not None)
            if values:
                fractions = [(i + 1) / len(values) for i in range(len(values))]
                axes.step(values, fractions, where="post", label=configuration.name)
        for name, bar in SPEC_BARS_MS.items():
            axes.axvline(bar, linestyle="--", linewidth=0.8, color="grey")
            axes.text(bar, 0.35, f" {name} {bar:.0f} ms", rotation=90, fontsize="x-small", color="grey")
        axes.set_xscale("log")
        axes.set_xlabel("latency, ms (log scale)")
        axes.set_ylabel("fraction of requests at or below")
        axes.set_title(route)
        axes.grid(alpha=0.3)
        axes.legend(fontsize="small", loc="upper left")
    save_figure(figure, path)
