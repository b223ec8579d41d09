"""The learned-ranker plot: every method's nDCG@10 minus the fused order's, one bar group per method."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.learned_ranker.compute import SplitScores
from control_plane.reports.figures import new_figure, save_figure


def plot(splits: Sequence[SplitScores], path: Path) -> None:
    figure = new_figure(9, 4.2)
    axes = figure.add_subplot(1, 1, 1)
    methods = [m.method for m in splits[0].methods]
    width = 0.8 / len(splits)
    for offset, split in enumerate(splits):
        deltas = {m.method: m.delta for m in split.methods}
        axes.bar(
            [i + offset * width for i in range(len(methods))],
            [deltas[m] for m in methods],
            width,
            label=split.split,
        )
    axes.axhline(0, color="black", linewidth=0.8)
    axes.set_xticks([i + width * (len(splits) - 1) / 2 for i in range(len(methods))], methods, rotation=15)
    axes.set_ylabel("nDCG@10 minus the fused order")
    axes.legend()
    save_figure(figure, path)
