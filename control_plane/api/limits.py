"""Per-key fair use: token buckets (sustained rate and burst) of requests and of question characters, and
a cap on requests in progress, so one caller's flood, pile of slow requests or stream of oversized
questions cannot take the threads and cores other keys need. While more than one key is busy, the cap is
each key's share of ``api.busy_share.requests`` (a flood of ordinary searches from one key within its own
limits otherwise tripled another key's P95 on two cores and cost it components: issue 50). A request is
counted when its key is known; its question's characters when its body has been read (a question costs
by its length: encoders, BM25 and highlighting). The clock is injectable, so the arithmetic is tested
without waiting."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from control_plane.config.api_settings import BusyShare, KeyLimits
from control_plane.errors import RateLimitedError
from control_plane.formulas.token_bucket import refilled, wait_for_token


@dataclass
class _KeyState:
    tokens: float
    refilled_at: float
    chars: float
    chars_refilled_at: float
    in_progress: int = 0
    ended_at: float | None = None  # when its last request ended


def busy_cap(own: int, share: BusyShare | None, busy_keys: int) -> int:
    """A key's cap on requests in progress: its own limit alone (or with no share), else at most its even
    share of ``share.requests`` among the ``busy_keys`` (itself counted), never below one."""
    if share is None or share.requests is None or busy_keys <= 1:
        return own
    return min(own, max(1, share.requests // busy_keys))


@dataclass
class KeyLimiter:
    """Admits or refuses each key's requests; ``release`` ends one admitted request."""

    clock: Callable[[], float] = time.monotonic
    _states: dict[str, _KeyState] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, key: str, limits: KeyLimits, share: BusyShare | None = None) -> None:
        """Count one request of ``key`` in, or raise RateLimitedError saying which limit and when to retry.
        ``share``: how busy keys share the requests in progress (None: each key keeps its own limit)."""
        now = self.clock()
        with self._lock:
            state = self._state(key, limits, now)
            state.tokens = refilled(state.tokens, state.refilled_at, now, limits.requests_per_s, limits.burst)
            state.refilled_at = now
            busy = self._busy_keys(key, share.window_s, now) if share is not None else 1
            cap = busy_cap(limits.concurrent, share, busy)
            if state.in_progress >= cap:
                if cap < limits.concurrent:
                    raise RateLimitedError(
                        f"this key has {state.in_progress} requests in progress and {busy - 1} other keys "
                        f"are busy: each gets {cap} at once while they are (alone: {limits.concurrent}); "
                        "wait for one of yours to end",
                        retry_after_s=1.0,
                    )
                raise RateLimitedError(
                    f"this key has {state.in_progress} requests in progress, its limit: wait for one to end",
                    retry_after_s=1.0,
                )
            if state.tokens < 1.0:
                wait = wait_for_token(state.tokens, limits.requests_per_s)
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
                wait = wait_for_token(state.chars, limits.question_chars_per_s, cost)
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

    def _busy_keys(self, key: str, window_s: float, now: float) -> int:
        """How many keys are busy, ``key`` among them: a request in progress, or one ended within
        ``window_s``."""
        busy = {key}
        for name, state in self._states.items():
            recent = state.ended_at is not None and now - state.ended_at <= window_s
            if state.in_progress > 0 or recent:
                busy.add(name)
        return len(busy)

    def release(self, key: str) -> None:
        with self._lock:
            state = self._states.get(key)
            if state is not None and state.in_progress > 0:
                state.in_progress -= 1
                state.ended_at = self.clock()

    def in_progress(self, key: str) -> int:
        with self._lock:
            state = self._states.get(key)
            return state.in_progress if state is not None else 0
