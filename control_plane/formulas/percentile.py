"""Percentiles of latencies and the like, p on the 0-100 scale everywhere: one small pure function
per method, dispatched by name."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence


def nearest_rank(ordered: Sequence[float], p: float) -> float:
    """The smallest observed value with at least p% of the values at or below it (an actual latency)."""
    rank = max(1, math.ceil(p * len(ordered) / 100 - 1e-9))
    return ordered[rank - 1]


def linear(ordered: Sequence[float], p: float) -> float:
    """Linear interpolation between the two closest ranks at (n - 1) * p / 100 (numpy's default)."""
    position = (len(ordered) - 1) * p / 100
    lower = math.floor(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (position - lower) * (ordered[upper] - ordered[lower])


PERCENTILE_METHODS: dict[str, Callable[[Sequence[float], float], float]] = {
    "nearest-rank": nearest_rank,
    "linear": linear,
}


def percentile(values: Iterable[float], p: float, method: str = "nearest-rank") -> float:
    """The ``p``-th percentile (0 <= p <= 100) of ``values``; an error for no values or an unknown method."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0 <= p <= 100:
        raise ValueError(f"percentile p must be within [0, 100], got {p}")
    if method not in PERCENTILE_METHODS:
        raise ValueError(f"unknown percentile method {method!r}; known: {', '.join(PERCENTILE_METHODS)}")
    return PERCENTILE_METHODS[method](ordered, p)
