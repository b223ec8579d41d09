"""The weights of the components in use, by hand: kept and rescaled to sum to 1, equal when none is
above 0."""

from __future__ import annotations

import pytest

from control_plane.fusion.weights import weights_in_use


def test_kept_weights_are_rescaled_to_sum_to_one() -> None:
    # 0.5 / 0.1 / 0.4 without splade: 0.5 / 0.9 and 0.4 / 0.9
    assert weights_in_use({"bm25": 0.5, "splade": 0.1, "dense": 0.4}, ["bm25", "dense"]) == pytest.approx(
        {"bm25": 5 / 9, "dense": 4 / 9}
    )


def test_a_component_the_weights_do_not_name_weighs_nothing() -> None:
    assert weights_in_use({"bm25": 0.3, "dense": 0.3}, ["bm25", "splade", "dense"]) == pytest.approx(
        {"bm25": 0.5, "splade": 0.0, "dense": 0.5}
    )


def test_only_zero_weights_left_become_equal_weights() -> None:
    assert weights_in_use({"bm25": 0.0, "splade": 0.0, "dense": 1.0}, ["bm25", "splade"]) == {
        "bm25": 0.5,
        "splade": 0.5,
    }
