"""The rerank-blend plot: nDCG@10 against the model weight, one line per rerank depth."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.rerank_blend.compute import GridPoint
from control_plane.reports.figures import new_figure, save_figure


def plot(points: Sequence[GridPoint], path: Path) -> None:
    figure = new_figure(6.4, 4.0)
    axes = figure.add_subplot()
    for depth in sorted({p.depth for p in points}):
        row = sorted((p for p in points if p.depth == depth), key=lambda p: p.weight)
        axes.plot([p.weight for p in row], [p.ndcg10 for p in row], marker="o", label=f"depth {depth}")
    axes.set_xlabel("model weight (0 = fused order, 1 = cross-encoder order)")
    axes.set_ylabel("nDCG@10")
    axes.grid(alpha=0.3)
    axes.legend()
    save_figure(figure, path)
