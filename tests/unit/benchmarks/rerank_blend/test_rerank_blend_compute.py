"""The rerank-blend benchmark's grid maths (hand-computed)."""

from __future__ import annotations

import math

import pytest
from unit.benchmarks.rerank_blend.examples import ITEMS, QRELS

from benchmarks.rerank_blend.compute import evaluate_point


def test_weight_zero_is_the_fused_ranking_and_one_the_models() -> None:
    fused = evaluate_point(QRELS, ITEMS, depth=2, weight=0.0)
    model = evaluate_point(QRELS, ITEMS, depth=2, weight=1.0)
    assert fused.per_query == {"q1": pytest.approx(1 / math.log2(3)), "q2": 1.0}
    assert model.per_query == {"q1": 1.0, "q2": 1.0}
    assert model.ndcg10 == 1.0 and fused.ndcg10 == pytest.approx((1 / math.log2(3) + 1) / 2)
    assert fused.recall100 == model.recall100 == 1.0
