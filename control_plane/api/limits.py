"""Per-key fair use: a token bucket (sustained rate and burst) and a cap on requests in progress, so one
caller's flood or pile of slow requests cannot take the threads and model capacity other keys need. The
clock is injectable, so the arithmetic is tested without waiting."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from control_plane.config.settings import KeyLimits
from control_plane.errors import RateLimitedError


@dataclass
class _KeyState:
    tokens: float
    refilled_at: float
    in_progress: int = 0


@dataclass
class KeyLimiter:
    """Admits or refuses each key's requests; ``release`` ends one admitted request."""

    clock: Callable[[], float] = time.monotonic
    _states: dict[str, _KeyState] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, key: str, limits: KeyLimits) -> None:
        """Count one request of ``key`` in, or raise RateLimitedError saying which limit and when to retry."""
        now = self.clock()
        with self._lock:
            state = self._states.setdefault(key, _KeyState(tokens=float(limits.burst), refilled_at=now))
            state.tokens = min(
                float(limits.burst), state.tokens + (now - state.refilled_at) * limits.requests_per_s
            )
            state.refilled_at = now
            if state.in_progress >= limits.concurrent:
                raise RateLimitedError(
                    f"this key has {state.in_progress} requests in progress, its limit: wait for one to end",
                    retry_after_s=1.0,
                )
            if state.tokens < 1.0:
                wait = (1.0 - state.tokens) / limits.requests_per_s
                raise RateLimitedError(
                    f"this key sent more than {limits.requests_per_s:g} requests per second (burst "
                    f"{limits.burst}): ask again in {wait:.2f}s",
                    retry_after_s=wait,
                )
            state.tokens -= 1.0
            state.in_progress += 1

    def release(self, key: str) -> None:
        with self._lock:
            state = self._states.get(key)
            if state is not None and state.in_progress > 0:
                state.in_progress -= 1

    def in_progress(self, key: str) -> int:
        with self._lock:
            state = self._states.get(key)
            return state.in_progress if state is not None else 0
