"""The growth plot: one panel per path, P95 against index size for each configuration (the series as
lines, other indices as labelled points)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.search_latency.samples import summarise
from benchmarks.search_scale.compute import StepRun
from control_plane.reports.figures import new_figure, save_figure


def plot_growth(runs: Sequence[StepRun], series: str, method: str, path: Path) -> None:
    first = runs[0].run
    line = sorted((r for r in runs if r.step.series == series), key=lambda r: r.step.chunks)
    extras = [r for r in runs if r.step.series != series]
    figure = new_figure(5.0 * len(first.paths), 4.2)
    for position, route in enumerate(first.paths, start=1):
        axes = figure.add_subplot(1, len(first.paths), position)
        for configuration in first.configurations:
            points = [
                (r.step.chunks, summarise(r.run.of(route, configuration.name), method).p95) for r in line
            ]
            kept = [(x, y) for x, y in points if y is not None]
            drawn = axes.plot(
                [x for x, _ in kept], [y for _, y in kept], marker="o", label=configuration.name
            )
            for extra in extras:
                value = summarise(extra.run.of(route, configuration.name), method).p95
                if value is not None:
                    axes.scatter([extra.step.chunks], [value], marker="x", color=drawn[0].get_color())
        for extra in extras:
            axes.axvline(extra.step.chunks, linestyle=":", linewidth=0.7, color="grey")
            axes.text(
                extra.step.chunks,
                0.02,
                f" {extra.step.index}",
                rotation=90,
                fontsize="x-small",
                color="grey",
                va="bottom",
                transform=axes.get_xaxis_transform(),
            )
        axes.set_xscale("log")
        sizes = sorted({r.step.chunks for r in runs})
        axes.set_xticks(sizes, [f"{size / 1000:.1f}k" for size in sizes], minor=False)
        axes.set_xticks([], minor=True)
        axes.tick_params(axis="x", labelrotation=45, labelsize="small")
        axes.set_xlabel("chunks in the index (log scale)")
        axes.set_ylabel("P95 latency, ms")
        axes.set_title(route)
        axes.grid(alpha=0.3)
        axes.legend(fontsize="small", loc="upper left")
    figure.suptitle(f"P95 by index size: lines, steps of {series}; crosses, other indices", fontsize="small")
    save_figure(figure, path)
