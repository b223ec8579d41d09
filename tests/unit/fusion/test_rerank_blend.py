"""The first-stage-aware rerank blend, against hand-computed values (k = 60 unless stated)."""

from __future__ import annotations

import pytest

from control_plane.fusion.rerank_blend import blended_order, blended_scores, model_ranks


def test_model_ranks_are_highest_first_with_ties_by_position() -> None:
    assert model_ranks([0.1, 3.0, 0.1, 2.0]) == [3, 1, 4, 2]


def test_weight_zero_keeps_the_fused_order_and_one_is_the_model_order() -> None:
    model = [0.0, 5.0, 1.0]
    assert blended_order(blended_scores(model, 5, 0.0)) == [0, 1, 2, 3, 4]
    assert blended_order(blended_scores(model, 5, 1.0)) == [1, 2, 0, 3, 4]


def test_half_weight_by_hand() -> None:
    # positions 1, 2 ; model ranks 2, 1 (the model prefers the second candidate)
    scores = blended_scores([0.2, 0.9], 3, 0.5, rank_constant=1)
    assert scores[0] == pytest.approx(0.5 / (1 + 2) + 0.5 / (1 + 1))  # 0.41667
    assert scores[1] == pytest.approx(0.5 / (1 + 1) + 0.5 / (1 + 2))  # the same: a tie
    assert scores[2] == pytest.approx(1 / (1 + 3))
    assert blended_order(scores) == [0, 1, 2]  # the tie goes to the fused order


def test_the_tail_follows_the_head_in_fused_order_whatever_the_model_says() -> None:
    scores = blended_scores([-9.0, -8.0, 7.0], 6, 1.0, rank_constant=60)
    order = blended_order(scores)
    assert order[:3] == [2, 1, 0] and order[3:] == [3, 4, 5]
    assert min(scores[:3]) > max(scores[3:])


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="weight"):
        blended_scores([1.0], 1, 1.5)
    with pytest.raises(ValueError, match="2 model scores for 1 candidates"):
        blended_scores([1.0, 2.0], 1, 0.5)
