"""The rerank-blend benchmark's grid maths (hand-computed) and its report's table."""

from __future__ import annotations

import math

import pytest

from control_plane.benchmarks.rerank_blend import Candidates, evaluate_point, render

QRELS = {"q1": {"b": 1}, "q2": {"x": 2}}
ITEMS = [
    Candidates("q1", ["a", "b", "a", "c"], [0.0, 5.0]),  # the model prefers b; chunk 3 repeats document a
    Candidates("q2", ["x", "y"], [1.0, 0.0]),
]


def test_weight_zero_is_the_fused_ranking_and_one_the_models() -> None:
    fused = evaluate_point(QRELS, ITEMS, depth=2, weight=0.0)
    model = evaluate_point(QRELS, ITEMS, depth=2, weight=1.0)
    assert fused.per_query == {"q1": pytest.approx(1 / math.log2(3)), "q2": 1.0}
    assert model.per_query == {"q1": 1.0, "q2": 1.0}
    assert model.ndcg10 == 1.0 and fused.ndcg10 == pytest.approx((1 / math.log2(3) + 1) / 2)
    assert fused.recall100 == model.recall100 == 1.0


def test_a_fixed_report_chooses_nothing() -> None:
    points = [evaluate_point(QRELS, ITEMS, 2, 0.0), evaluate_point(QRELS, ITEMS, 2, 1.0)]
    grid = render(points, ["# t"])
    fixed = render(points, ["# t"], grid=False)
    assert "| 2 | 1.00 | 1.0000 | +0.1845 |" in grid and "Best point: depth 2, model weight 1.00" in grid
    assert "Best point" not in fixed and "| 2 | 0.00 | 0.8155 | +0.0000 | 1.000 |" in fixed
