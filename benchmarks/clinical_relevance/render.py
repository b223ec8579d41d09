"""The clinical-relevance plot: per-intent nDCG@10 with boosts off and on, one panel per fusion method."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.clinical_relevance.compute import FusionFigures
from control_plane.reports.figures import new_figure, save_figure


def plot_groups(fusions: Sequence[FusionFigures], path: Path) -> None:
    """Per-intent nDCG@10 bars, boosts off and on, one panel per fusion method."""
    figure = new_figure(9.5, 3.6 * len(fusions))
    for row, figures in enumerate(fusions, start=1):
        intents = [g for g in figures.groups if g.name.startswith("intent:")]
        axes = figure.add_subplot(len(fusions), 1, row)
        xs = range(len(intents))
        axes.bar([x - 0.2 for x in xs], [g.ndcg10.reference for g in intents], 0.4, label="boosts off")
        axes.bar([x + 0.2 for x in xs], [g.ndcg10.value for g in intents], 0.4, label="boosts on")
        axes.set_xticks(list(xs), [f"{g.name[7:]}\n(n={g.queries})" for g in intents], fontsize=8)
        axes.set_ylabel("nDCG@10")
        axes.set_ylim(0, 1)
        axes.set_title(f"{figures.fusion}: per intent", fontsize=10)
        axes.legend(fontsize=8)
    save_figure(figure, path)
