"""The token bucket, the one rate rule of the control API's per-key limits and the inference service's
per-caller limits: a sustained rate refills a bucket up to its burst; a request takes a token."""

from __future__ import annotations


def refilled(level: float, since: float, now: float, rate: float, capacity: float) -> float:
    """A token bucket's level at ``now``: what it held plus the sustained rate since, up to its capacity."""
    return min(capacity, level + (now - since) * rate)


def wait_for_token(level: float, rate: float, cost: float = 1.0) -> float:
    """Seconds until a bucket at ``level`` holds ``cost`` tokens at ``rate`` per second (0 when it does)."""
    return max(0.0, (cost - level) / rate)
