"""neural-search's min-max normalisation and weighted combination, by hand (moved from test_exact)."""

from __future__ import annotations

import pytest

from control_plane.fusion.minmax import min_max_normalise, weighted_min_max


def test_min_max_maps_the_minimum_to_a_thousandth() -> None:
    assert min_max_normalise({"a": 4.0, "b": 3.0, "c": 2.0}) == {"a": 1.0, "b": 0.5, "c": 0.001}


def test_min_max_of_equal_scores_is_one() -> None:
    assert min_max_normalise({"a": 2.0, "b": 2.0}) == {"a": 1.0, "b": 1.0}
    assert min_max_normalise({"a": 7.0}) == {"a": 1.0}
    assert min_max_normalise({}) == {}


def test_weighted_min_max_divides_by_the_weight_sum() -> None:
    fused = weighted_min_max([{"a": 2.0, "b": 1.0}, {"b": 5.0}], [1.0, 1.0])
    assert fused == pytest.approx({"a": 0.5, "b": (0.001 + 1.0) / 2})
    with pytest.raises(ValueError, match="one weight per sub-query"):
        weighted_min_max([{"a": 1.0}], [0.5, 0.5])
