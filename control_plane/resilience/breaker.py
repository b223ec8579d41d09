"""A circuit breaker per model: after ``failures`` consecutive failed calls it opens, and callers fail fast
(no call is made) until ``reset_s`` has passed; then one probe call is let through (half-open): its success
closes the breaker, its failure opens it again for another ``reset_s``.

Why: a model that keeps failing (CUDA out of memory, a dead service) should cost a caller nothing while it
recovers instead of a full timeout per request, and should not be hammered by every waiting request.
The clock is injected (``time.monotonic`` by default), so the state machine is tested with hand-made clocks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

State = Literal["closed", "open", "half_open"]
STATE_VALUES: dict[State, int] = {"closed": 0, "open": 1, "half_open": 2}
"""The value of each state in the breaker-state gauges."""


@dataclass(frozen=True)
class BreakerSettings:
    failures: int
    """Consecutive failures that open the breaker; 0 turns it off (always closed)."""
    reset_s: float
    """How long an open breaker refuses calls before it lets one probe through."""

    def __post_init__(self) -> None:
        if self.failures < 0 or self.reset_s <= 0:
            raise ValueError(f"breaker failures must be ≥ 0 and reset_s > 0: {self.failures}, {self.reset_s}")


class CircuitBreaker:
    """Thread-safe. Callers ask :meth:`allow` before a call and report it with :meth:`record_success` or
    :meth:`record_failure`. A probe whose outcome is never reported (its caller gave up) does not wedge the
    breaker: after another ``reset_s`` a new probe is let through."""

    def __init__(self, settings: BreakerSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._state: State = "closed"
        self._consecutive = 0
        self._since = 0.0  # when the breaker opened, or when the probe was let through
        self.opened = 0
        """How many times the breaker opened (a failed probe counts again)."""

    @property
    def state(self) -> State:
        return self._state

    @property
    def consecutive_failures(self) -> int:
        return self._consecutive

    def retry_in_s(self) -> float:
        """Seconds until an open breaker lets a probe through (0 when it would now)."""
        with self._lock:
            if self._state == "closed":
                return 0.0
            return max(0.0, self._since + self.settings.reset_s - self._clock())

    def allow(self) -> bool:
        """Whether a call may be made now; a half-open probe let through makes the others wait for it."""
        with self._lock:
            if self._state == "closed":
                return True
            if self._clock() - self._since < self.settings.reset_s:
                return False  # open, or half-open with a probe still out
            self._state, self._since = "half_open", self._clock()
            return True

    def record_success(self) -> None:
        with self._lock:
            self._state, self._consecutive = "closed", 0

    def record_failure(self) -> None:
        with self._lock:
            self._consecutive += 1
            if self.settings.failures == 0:
                return
            if self._state == "open":
                return  # a late answer of a call let through before it opened
            if self._state == "half_open" or self._consecutive >= self.settings.failures:
                self.opened += 1
                self._state, self._since = "open", self._clock()


class BreakerBoard:
    """One breaker per model name, made on first use with the same settings; what the metrics read."""

    def __init__(self, settings: BreakerSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._clock = clock
        self._breakers: dict[str, CircuitBreaker] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> CircuitBreaker:
        with self._lock:
            breaker = self._breakers.get(name)
            if breaker is None:
                breaker = self._breakers[name] = CircuitBreaker(self.settings, self._clock)
            return breaker

    def snapshot(self) -> dict[str, tuple[State, int]]:
        """``{name: (state, times opened)}`` of every breaker made so far."""
        with self._lock:
            return {name: (b.state, b.opened) for name, b in sorted(self._breakers.items())}
