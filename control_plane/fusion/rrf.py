"""Reciprocal rank fusion, and the spec's tie rule.

score(d) = sum over rankings r that contain d of w_r / (rank_constant + rank_r(d)), ranks from 1, with
w_r = 1 for the classic form and the ranking's weight for weighted RRF (OpenSearch 3.1+'s
``combination.parameters.weights``: each in [0, 1], summing to 1; neural-search multiplies each
sub-query's reciprocal rank by its weight, so a weak component no longer gets the vote of a strong
one). A document missing from a ranking gets nothing from it. OpenSearch's score-ranker-processor computes
the same scores but orders equal scores by Lucene document order; the spec wants ties broken by the
BM25 rank, so the control plane re-orders equal-score runs with ``order_by_score_then_rank``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

DEFAULT_RANK_CONSTANT = 60


def rrf_scores(
    rankings: Sequence[Sequence[str]],
    rank_constant: int = DEFAULT_RANK_CONSTANT,
    weights: Sequence[float] | None = None,
) -> dict[str, float]:
    """Fused RRF score per document over rankings given best-first; ``weights``: one per ranking
    (None: 1 each, the classic form)."""
    if rank_constant < 1:
        raise ValueError(f"rank_constant must be >= 1, got {rank_constant}")
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings: give one per ranking")
    scores: dict[str, float] = {}
    for number, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[number]
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (rank_constant + rank)
    return scores


def order_by_score_then_rank(
    scores: Mapping[str, float], tie_ranking: Sequence[str], tolerance: float = 1e-9
) -> list[str]:
    """Documents by score descending; equal scores (within ``tolerance``, since OpenSearch returns
    float32) by their position in ``tie_ranking`` (the BM25 ranking); documents absent from it come
    after those present, then by id so the order is total."""
    position = {doc_id: i for i, doc_id in enumerate(tie_ranking)}
    by_score = sorted(scores, key=lambda d: -scores[d])
    ordered: list[str] = []
    group: list[str] = []
    for doc_id in by_score:
        if group and scores[group[0]] - scores[doc_id] > tolerance:
            ordered.extend(_by_tie_rank(group, position))
            group = []
        group.append(doc_id)
    ordered.extend(_by_tie_rank(group, position))
    return ordered


def _by_tie_rank(group: list[str], position: Mapping[str, int]) -> list[str]:
    return sorted(group, key=lambda d: (position.get(d, len(position)), d))
