"""Which searches emit an event: a draw in [0, 1) below the rate (1.0: every search, 0: none)."""

from __future__ import annotations

import random


def sampled(rate: float, draw: float | None = None) -> bool:
    """Whether this search emits; ``draw`` is the uniform [0, 1) number (one is drawn when None)."""
    if rate <= 0:
        return False
    if rate >= 1:
        return True
    return (random.random() if draw is None else draw) < rate
