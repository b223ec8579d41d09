"""The token bucket by hand: refill at the rate up to the capacity, and the wait for the next token."""

from __future__ import annotations

import pytest

from control_plane.formulas.token_bucket import refilled, wait_for_token


@pytest.mark.parametrize(
    ("level", "since", "now", "rate", "capacity", "expected"),
    [
        (0.0, 10.0, 10.5, 4.0, 8.0, 2.0),  # half a second at 4/s
        (7.0, 0.0, 1.0, 4.0, 8.0, 8.0),  # capped at the capacity
        (0.25, 3.0, 3.0, 4.0, 8.0, 0.25),  # no time, no tokens
    ],
)
def test_a_bucket_refills_at_its_rate_up_to_its_capacity(
    level: float, since: float, now: float, rate: float, capacity: float, expected: float
) -> None:
    assert refilled(level, since, now, rate, capacity) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("level", "rate", "cost", "expected"),
    [
        (0.0, 4.0, 1.0, 0.25),
        (0.5, 2.0, 1.0, 0.25),
        (1.0, 2.0, 1.0, 0.0),
        (3.0, 2.0, 1.0, 0.0),
        (10.0, 5.0, 30.0, 4.0),
    ],
)
def test_the_wait_is_the_missing_tokens_over_the_rate(
    level: float, rate: float, cost: float, expected: float
) -> None:
    assert wait_for_token(level, rate, cost) == pytest.approx(expected)
