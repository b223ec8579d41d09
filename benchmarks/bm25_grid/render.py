"""The BM25 grid plot: per split, bm25 and hybrid-minmax nDCG@10 over the (k1, b) grid."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from benchmarks.bm25_grid.compute import Point, Scores
from control_plane.reports.figures import new_figure, save_figure


def plot(scored: Mapping[Point, Mapping[str, Scores]], path: Path) -> None:
    """Per split, hybrid-minmax and bm25 nDCG@10 over the (k1, b) grid at the current boosts and depth."""
    grid = [p for p in scored if p.boosts == "current" and p.depths == (100, 100, 100)]
    splits = list(next(iter(scored.values())))
    figure = new_figure(5.0 * len(splits), 8.2)
    for column, split in enumerate(splits):
        for row, configuration in enumerate(("bm25", "hybrid-minmax")):
            axes = figure.add_subplot(2, len(splits), row * len(splits) + column + 1)
            values = [scored[p][split].mean(configuration) for p in grid]
            drawn = axes.scatter(
                [p.k1 for p in grid], [p.b for p in grid], c=values, cmap="viridis", s=260, marker="s"
            )
            best = max(grid, key=lambda p: scored[p][split].mean(configuration))
            axes.scatter([best.k1], [best.b], marker="*", s=220, c="red")
            axes.set_xlabel("k1")
            axes.set_ylabel("b")
            axes.set_title(f"{split}: {configuration} nDCG@10")
            figure.colorbar(drawn, ax=axes)
    save_figure(figure, path)
