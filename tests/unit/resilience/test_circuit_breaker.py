"""The breaker's state machine, driven by a hand-made clock: closed → open after N consecutive failures →
half-open (one probe) after the reset timeout → closed on success or open again on failure."""

from __future__ import annotations

import pytest

from control_plane.resilience.breaker import BreakerBoard, BreakerSettings, CircuitBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _breaker(failures: int = 3, reset_s: float = 10.0) -> tuple[CircuitBreaker, Clock]:
    clock = Clock()
    return CircuitBreaker(BreakerSettings(failures, reset_s), clock), clock


def test_it_opens_after_n_consecutive_failures_and_then_refuses() -> None:
    breaker, _ = _breaker(failures=3)
    for _ in range(2):
        assert breaker.allow()
        breaker.record_failure()
    assert breaker.state == "closed"
    assert breaker.allow()
    breaker.record_failure()
    assert (breaker.state, breaker.opened, breaker.consecutive_failures) == ("open", 1, 3)
    assert breaker.allow() is False


def test_a_success_resets_the_count_of_consecutive_failures() -> None:
    breaker, _ = _breaker(failures=3)
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    breaker.record_failure()
    assert (breaker.state, breaker.consecutive_failures) == ("closed", 2)


def test_after_the_reset_timeout_one_probe_goes_through_and_its_success_closes() -> None:
    breaker, clock = _breaker(failures=1, reset_s=10.0)
    breaker.record_failure()
    clock.now += 9.9
    assert breaker.allow() is False
    assert breaker.retry_in_s() == pytest.approx(0.1)
    clock.now += 0.1
    assert breaker.allow() is True  # the probe
    assert breaker.state == "half_open"
    assert breaker.allow() is False  # the others wait for the probe's outcome
    breaker.record_success()
    assert (breaker.state, breaker.consecutive_failures) == ("closed", 0)
    assert breaker.allow() and breaker.allow()


def test_a_failed_probe_opens_it_again_for_another_reset_timeout() -> None:
    breaker, clock = _breaker(failures=2, reset_s=5.0)
    breaker.record_failure()
    breaker.record_failure()
    clock.now += 5.0
    assert breaker.allow()
    breaker.record_failure()
    assert (breaker.state, breaker.opened) == ("open", 2)
    clock.now += 4.0
    assert breaker.allow() is False
    clock.now += 1.0
    assert breaker.allow() is True


def test_a_probe_that_never_reports_does_not_wedge_the_breaker() -> None:
    breaker, clock = _breaker(failures=1, reset_s=5.0)
    breaker.record_failure()
    clock.now += 5.0
    assert breaker.allow()  # probe let through, its caller gave up without reporting
    clock.now += 4.0
    assert breaker.allow() is False
    clock.now += 1.0
    assert breaker.allow() is True


def test_a_late_failure_does_not_extend_an_open_breaker() -> None:
    breaker, clock = _breaker(failures=1, reset_s=5.0)
    breaker.record_failure()
    clock.now += 3.0
    breaker.record_failure()  # a call let through before it opened, answering now
    assert breaker.opened == 1
    clock.now += 2.0
    assert breaker.allow() is True


def test_zero_failures_turns_it_off() -> None:
    breaker, _ = _breaker(failures=0)
    for _ in range(50):
        breaker.record_failure()
    assert breaker.state == "closed" and breaker.allow()


def test_impossible_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="reset_s"):
        BreakerSettings(3, 0)
    with pytest.raises(ValueError, match="failures"):
        BreakerSettings(-1, 1)


def test_the_board_keeps_one_breaker_per_model() -> None:
    clock = Clock()
    board = BreakerBoard(BreakerSettings(1, 5.0), clock)
    board.get("bge-small").record_failure()
    assert board.get("bge-small") is board.get("bge-small")
    board.get("splade-tiny").record_success()
    assert board.snapshot() == {"bge-small": ("open", 1), "splade-tiny": ("closed", 0)}
