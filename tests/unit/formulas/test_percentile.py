"""Percentiles by hand (0-100 scale): nearest rank, linear interpolation, float noise, bad input."""

from __future__ import annotations

import pytest

from control_plane.formulas.percentile import percentile

WIKI = [15.0, 20.0, 35.0, 40.0, 50.0]  # the textbook nearest-rank example


@pytest.mark.parametrize(
    ("p", "expected"), [(0, 15.0), (5, 15.0), (30, 20.0), (40, 20.0), (50, 35.0), (100, 50.0)]
)
def test_nearest_rank_is_the_value_at_rank_ceil_p_n(p: float, expected: float) -> None:
    # n = 5: P30 -> rank ceil(1.5) = 2 -> 20; P40 -> rank ceil(2.0) = 2 -> 20 (not 35).
    assert percentile(WIKI, p, "nearest-rank") == expected


@pytest.mark.parametrize(("p", "expected"), [(0, 15.0), (40, 29.0), (50, 35.0), (95, 48.0), (100, 50.0)])
def test_linear_interpolates_at_n_minus_one_times_p(p: float, expected: float) -> None:
    # P40: position 4 * 0.4 = 1.6 -> 20 + 0.6 * (35 - 20) = 29; P95: 3.8 -> 40 + 0.8 * 10 = 48.
    assert percentile(WIKI, p, "linear") == pytest.approx(expected)


def test_exact_ranks_are_not_pushed_up_by_float_noise() -> None:
    # 16.1% of 1,000 is rank 161, but 16.1 * 1000 / 100 is 161.00000000000003 in floats: not rank 162.
    values = [float(v) for v in range(1, 1001)]
    assert [percentile(values, p) for p in (16.1, 50, 95, 99)] == [161.0, 500.0, 950.0, 990.0]
    assert percentile(values, 50, "linear") == pytest.approx(500.5)


def test_percentile_sorts_its_input_and_refuses_nonsense() -> None:
    assert percentile([50.0, 15.0, 40.0, 20.0, 35.0], 50) == 35.0
    assert percentile([7.0], 99) == 7.0
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        percentile(WIKI, 101)
    with pytest.raises(ValueError, match="unknown percentile method"):
        percentile(WIKI, 50, "median-of-medians")


def test_the_evaluation_runners_latency_percentiles() -> None:
    # Moved from the runner's own nearest-rank percentile (then on a 0-1 scale: 0.5 and 0.95).
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 95) == 5.0
