"""The rerank-blend report's table: every point against the fused ranking, the best point on a grid."""

from __future__ import annotations

from unit.benchmarks.rerank_blend.examples import ITEMS, QRELS

from benchmarks.rerank_blend.compute import evaluate_point
from benchmarks.rerank_blend.report import render_report as render


def test_a_fixed_report_chooses_nothing() -> None:
    points = [evaluate_point(QRELS, ITEMS, 2, 0.0), evaluate_point(QRELS, ITEMS, 2, 1.0)]
    grid = render(points, ["# t"])
    fixed = render(points, ["# t"], grid=False)
    assert "| 2 | 1.00 | 1.0000 | +0.1845 |" in grid and "Best point: depth 2, model weight 1.00" in grid
    assert "Best point" not in fixed and "| 2 | 0.00 | 0.8155 | +0.0000 | 1.000 |" in fixed
