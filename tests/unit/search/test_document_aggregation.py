"""Document granularity: each aggregation method on hand-computed scores, best chunks, tie order."""

from __future__ import annotations

import pytest

from control_plane.search.documents import aggregate_by_document
from control_plane.search.neighbours import ChunkHit


def _hit(chunk_id: str, score: float) -> ChunkHit:
    doc_id = chunk_id.split(":")[0]
    return ChunkHit(chunk_id, doc_id, score, 0, 1, "x", 1)


# Rank order as fused: a gets 5, 1, 1, 1; b gets 4, 4; c gets 3.
HITS = [
    _hit("a:0", 5.0),
    _hit("b:0", 4.0),
    _hit("b:1", 4.0),
    _hit("c:0", 3.0),
    _hit("a:1", 1.0),
    _hit("a:2", 1.0),
    _hit("a:3", 1.0),
]


def _summary(method: str, best: int = 3) -> list[tuple[str, float, list[str]]]:
    return [
        (d.doc_id, round(d.score, 6), [c.chunk_id for c in d.chunks])
        for d in aggregate_by_document(HITS, method=method, best_chunks=best)
    ]


def test_max() -> None:
    assert _summary("max") == [
        ("a", 5.0, ["a:0", "a:1", "a:2"]),
        ("b", 4.0, ["b:0", "b:1"]),
        ("c", 3.0, ["c:0"]),
    ]


def test_sum() -> None:
    assert _summary("sum") == [
        ("a", 8.0, ["a:0", "a:1", "a:2"]),
        ("b", 8.0, ["b:0", "b:1"]),
        ("c", 3.0, ["c:0"]),
    ]  # a and b tie at 8: a's best chunk ranks first


def test_mean_top3_uses_the_chunks_there_are() -> None:
    # a: (5 + 1 + 1) / 3; b: (4 + 4) / 2; c: 3 / 1.
    assert _summary("mean_top3", best=1) == [
        ("b", 4.0, ["b:0"]),
        ("c", 3.0, ["c:0"]),
        ("a", 2.333333, ["a:0"]),
    ]


def test_best_chunks_are_sorted_by_score_then_rank() -> None:
    hits = [_hit("d:0", 1.0), _hit("d:1", 2.0), _hit("d:2", 1.0)]
    (document,) = aggregate_by_document(hits, best_chunks=2)
    assert [c.chunk_id for c in document.chunks] == ["d:1", "d:0"]


def test_tie_keeps_the_order_of_best_chunks() -> None:
    hits = [_hit("y:0", 2.0), _hit("x:0", 2.0)]
    assert [d.doc_id for d in aggregate_by_document(hits)] == ["y", "x"]


def test_empty_and_bad_arguments() -> None:
    assert aggregate_by_document([]) == []
    with pytest.raises(ValueError, match="mean_top3"):
        aggregate_by_document(HITS, method="median")
    with pytest.raises(ValueError, match="best_chunks"):
        aggregate_by_document(HITS, best_chunks=0)
