"""The fusion-grid plot: per split, nDCG@10 over the weight simplex for min-max and weighted RRF."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.fusion_grid.compute import Scored
from control_plane.reports.figures import new_figure, save_figure


def plot(scored: Sequence[Scored], path: Path) -> None:
    """Per split (columns) and fusion (rows: min-max, weighted RRF when scored), mean nDCG@10 over the
    weight simplex (bm25 on x, dense on y, splade the rest); the best point starred."""
    splits = list(next(iter(scored)).ndcg)
    families = [("min-max", [s for s in scored if s.setting.fusion != "rrf"])]
    weighted_rrf = [s for s in scored if s.setting.weighted_rrf]
    if weighted_rrf:
        families.append(("weighted RRF", weighted_rrf))
    figure = new_figure(5.2 * len(splits), 4.4 * len(families))
    for row, (family, points) in enumerate(families):
        for column, split in enumerate(splits, start=1):
            axes = figure.add_subplot(len(families), len(splits), row * len(splits) + column)
            xs = [(s.setting.weights or (0.0, 0.0, 0.0))[0] for s in points]
            ys = [(s.setting.weights or (0.0, 0.0, 0.0))[2] for s in points]
            values = [s.mean(split) for s in points]
            drawn = axes.scatter(xs, ys, c=values, cmap="viridis", s=140, marker="s")
            best = max(points, key=lambda s: s.mean(split))
            best_weights = best.setting.weights or (0.0, 0.0, 0.0)
            axes.scatter([best_weights[0]], [best_weights[2]], marker="*", s=220, c="red")
            axes.set_xlabel("bm25 weight")
            axes.set_ylabel("dense weight (splade = 1 - bm25 - dense)")
            axes.set_title(f"{split}: {family} nDCG@10")
            figure.colorbar(drawn, ax=axes)
    save_figure(figure, path)
