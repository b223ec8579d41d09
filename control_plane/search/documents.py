"""Document granularity: group ranked chunks by document and score each document from its chunks.

Works on any ranked item with a ``doc_id`` and a ``score`` (the API's ``ChunkResult``), so the result
type flows through unchanged.

Methods (dispatched by name): ``max`` the best chunk's score; ``sum`` all its chunks' scores (favours
documents with many matching passages); ``mean_top3`` the mean of its (up to) three best chunks.
Documents with equal scores keep the order of their best chunks in the input ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Generic, Protocol, TypeVar

TOP_N_FOR_MEAN: Final = 3


class Ranked(Protocol):
    """What aggregation reads from a ranked chunk."""

    @property
    def doc_id(self) -> str: ...

    @property
    def score(self) -> float: ...


R = TypeVar("R", bound=Ranked)


@dataclass(frozen=True)
class DocumentHit(Generic[R]):
    doc_id: str
    score: float
    chunks: tuple[R, ...]


def _max(scores: Sequence[float]) -> float:
    return max(scores)


def _sum(scores: Sequence[float]) -> float:
    return sum(scores)


def _mean_top3(scores: Sequence[float]) -> float:
    """Mean of the three best (``scores`` come best first); fewer chunks: the mean of those."""
    best = scores[:TOP_N_FOR_MEAN]
    return sum(best) / len(best)


AGGREGATORS: Final[dict[str, Callable[[Sequence[float]], float]]] = {
    "max": _max,
    "sum": _sum,
    "mean_top3": _mean_top3,
}


def aggregate_by_document(
    hits: Sequence[R], method: str = "max", best_chunks: int = 3
) -> list[DocumentHit[R]]:
    """Documents ranked by the aggregate of their chunks' scores (``hits`` in rank order); each keeps
    its ``best_chunks`` best chunks, best first (ties: earlier rank first)."""
    if method not in AGGREGATORS:
        raise ValueError(f"unknown aggregation method {method!r}; expected one of {sorted(AGGREGATORS)}")
    if best_chunks < 1:
        raise ValueError(f"best_chunks must be >= 1, got {best_chunks}")
    aggregate = AGGREGATORS[method]
    ranked: dict[str, list[tuple[int, R]]] = {}
    for rank, hit in enumerate(hits):
        ranked.setdefault(hit.doc_id, []).append((rank, hit))
    scored: list[tuple[float, int, DocumentHit[R]]] = []
    for doc_id, members in ranked.items():
        members.sort(key=lambda member: (-member[1].score, member[0]))
        score = aggregate([hit.score for _, hit in members])
        chunks = tuple(hit for _, hit in members[:best_chunks])
        scored.append((score, members[0][0], DocumentHit(doc_id=doc_id, score=score, chunks=chunks)))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [document for _, _, document in scored]
