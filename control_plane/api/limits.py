"""Per-key fair use: token buckets (sustained rate and burst) of requests and of question characters, and
a cap on requests in progress, so one caller's flood, pile of slow requests or stream of oversized
questions cannot take the threads and cores other keys need. A request is counted when its key is
known; its question's characters when its body has been read (a question costs by its length: encoders,
BM25 and highlighting). The clock is injectable, so the arithmetic is tested without waiting."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from control_plane.config.api_settings import KeyLimits
from control_plane.errors import RateLimitedError


@dataclass
class _KeyState:
    tokens: float
    refilled_at: float
    chars: float
    chars_refilled_at: float
    in_progress: int = 0


def refilled(level: float, since: float, now: float, rate: float, capacity: float) -> float:
    """A token bucket's level at ``now``: what it held plus the sustained rate since, up to its capacity."""
    return min(capacity, level + (now - since) * rate)


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
            state = self._state(key, limits, now)
            state.tokens = refilled(state.tokens, state.refilled_at, now, limits.requests_per_s, limits.burst)
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

    def charge_question(self, key: str, question: str, limits: KeyLimits) -> None:
        """Take the question's characters from ``key``'s bucket, or raise RateLimitedError saying when to
        retry. Its first ``question_chars_free`` characters cost nothing (an ordinary question is counted by
        its request alone); one costing more than the burst costs the whole burst (it waits for a full
        bucket, never forever); a refused question takes nothing."""
        excess = len(question) - limits.question_chars_free
        if excess <= 0:
            return
        now = self.clock()
        cost = float(min(excess, limits.question_chars_burst))
        with self._lock:
            state = self._state(key, limits, now)
            state.chars = refilled(
                state.chars,
                state.chars_refilled_at,
                now,
                limits.question_chars_per_s,
                limits.question_chars_burst,
            )
            state.chars_refilled_at = now
            if state.chars < cost:
                wait = (cost - state.chars) / limits.question_chars_per_s
                raise RateLimitedError(
                    f"this key sent more than {limits.question_chars_per_s:g} characters of long questions "
                    f"per second (those past the first {limits.question_chars_free} of each; burst "
                    f"{limits.question_chars_burst}; this one has {len(question)}): ask again in "
                    f"{wait:.2f}s, or send questions of at most {limits.question_chars_free} characters",
                    retry_after_s=wait,
                )
            state.chars -= cost

    def _state(self, key: str, limits: KeyLimits, now: float) -> _KeyState:
        state = self._states.get(key)
        if state is None:  # a new key starts with full buckets
            state = _KeyState(
                tokens=float(limits.burst),
                refilled_at=now,
                chars=float(limits.question_chars_burst),
                chars_refilled_at=now,
            )
            self._states[key] = state
        return state

    def release(self, key: str) -> None:
        with self._lock:
            state = self._states.get(key)
            if state is not None and state.in_progress > 0:
                state.in_progress -= 1

    def in_progress(self, key: str) -> int:
        with self._lock:
            state = self._states.get(key)
            return state.in_progress if state is not None else 0
