"""A rerank that cannot undo a good first stage: the model's order of the top ``depth`` candidates
blended with their incoming (fused) order by weighted reciprocal ranks; the rest keep the fused order.

Candidates arrive best-first from the first stage (OpenSearch's rerank processor sends them in fused
order), positions p = 1..n. With r(p) the model's rank among the first ``depth`` (ties by position):

    blended(p) = w / (k + r(p)) + (1 - w) / (k + p)     for p <= depth
    blended(p) = 1 / (k + p)                            for p >  depth

Every head score is at least 1 / (k + depth), so the tail stays below the head, in fused order, and
the list is never cut. w = 0 returns the fused order; w = 1 is a plain rerank of the top ``depth``.
"""

from __future__ import annotations

from collections.abc import Sequence

from control_plane.fusion.rrf import DEFAULT_RANK_CONSTANT


def model_ranks(scores: Sequence[float]) -> list[int]:
    """Rank (from 1) of each score, highest first; equal scores keep their input order."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    ranks = [0] * len(scores)
    for rank, i in enumerate(order, start=1):
        ranks[i] = rank
    return ranks


def blended_scores(
    model_scores: Sequence[float],
    total: int,
    weight: float,
    rank_constant: int = DEFAULT_RANK_CONSTANT,
) -> list[float]:
    """Scores for ``total`` candidates in first-stage order, ``model_scores`` given for the first
    ``len(model_scores)`` of them (the rerank depth)."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be within [0, 1], got {weight}")
    if rank_constant < 1:
        raise ValueError(f"rank_constant must be >= 1, got {rank_constant}")
    if len(model_scores) > total:
        raise ValueError(f"{len(model_scores)} model scores for {total} candidates")
    head = [
        weight / (rank_constant + rank) + (1.0 - weight) / (rank_constant + position)
        for position, rank in enumerate(model_ranks(model_scores), start=1)
    ]
    tail = [1.0 / (rank_constant + position) for position in range(len(model_scores) + 1, total + 1)]
    return head + tail


def blended_order(scores: Sequence[float]) -> list[int]:
    """Candidate indices best-first by blended score; equal scores keep the first-stage order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))
