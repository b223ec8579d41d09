"""The fusion-grid plot: per split, min-max nDCG@10 over the weight simplex."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from control_plane.benchmarks.fusion_grid.compute import Scored
from control_plane.reports.figures import new_figure, save_figure


def plot(scored: Sequence[Scored], path: Path) -> None:
    """Per split, mean nDCG@10 over the weight simplex (bm25 on x, dense on y, splade the rest)."""
    splits = list(next(iter(scored)).ndcg)
    figure = new_figure(5.2 * len(splits), 4.4)
    for position, split in enumerate(splits, start=1):
        axes = figure.add_subplot(1, len(splits), position)
        points = [s for s in scored if s.setting.fusion != "rrf"]
        xs = [s.setting.weights[0] for s in points]
        ys = [s.setting.weights[2] for s in points]
        values = [s.mean(split) for s in points]
        drawn = axes.scatter(xs, ys, c=values, cmap="viridis", s=140, marker="s")
        best = max(points, key=lambda s: s.mean(split))
        axes.scatter([best.setting.weights[0]], [best.setting.weights[2]], marker="*", s=220, c="red")
        axes.set_xlabel("bm25 weight")
        axes.set_ylabel("dense weight (splade = 1 - bm25 - dense)")
        axes.set_title(f"{split}: min-max nDCG@10")
        figure.colorbar(drawn, ax=axes)
    save_figure(figure, path)
