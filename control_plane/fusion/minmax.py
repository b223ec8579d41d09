"""neural-search's min-max normalisation and weighted combination: the reference the hybrid-minmax
pipeline is checked against (control_plane/evaluation/exact.py, tests/integration/test_exact_reference.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

MIN_MAX_FLOOR: Final = 0.001  # neural-search's MIN_SCORE: what a sub-query's lowest score normalises to


def min_max_normalise(scores: Mapping[str, float]) -> dict[str, float]:
    """neural-search min_max over one sub-query's candidate list: (s - min) / (max - min); the minimum
    becomes 0.001 rather than 0, and a list whose scores are all equal becomes 1.0."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, 1.0)
    normalised = {doc: (score - low) / (high - low) for doc, score in scores.items()}
    return {doc: MIN_MAX_FLOOR if value == 0.0 else value for doc, value in normalised.items()}


def weighted_min_max(lists: Sequence[Mapping[str, float]], weights: Sequence[float]) -> dict[str, float]:
    """Σ_i w_i · minmax_i(d) / Σ_i w_i over every sub-query: a document missing from list i gets 0 from
    it, and w_i stays in the denominator (neural-search initialises missing scores to 0.0 ≥ 0)."""
    if len(lists) != len(weights):
        raise ValueError(
            f"{len(weights)} weights for {len(lists)} sub-queries: give one weight per sub-query"
        )
    total = math.fsum(weights)
    if total <= 0:
        raise ValueError(f"fusion weights must have a positive sum, got {list(weights)}")
    fused: dict[str, float] = {}
    for scores, weight in zip(lists, weights, strict=True):
        for doc, value in min_max_normalise(scores).items():
            fused[doc] = fused.get(doc, 0.0) + weight * value
    return {doc: value / total for doc, value in fused.items()}
