"""The order a page is cut from: relevance (the fused, routed order, RRF's equal scores by BM25 rank)
unless the search asks for $orderby keys. Sorts are stable, so ties keep their relevance order; chunks
without a publication date go last whichever the direction."""

from __future__ import annotations

from collections.abc import Sequence

from control_plane.fusion.rrf import order_by_score_then_rank
from control_plane.search.odata.expression import SortKey
from control_plane.search.results import ChunkResult


def ordered_chunks(chunks: Sequence[ChunkResult], keys: Sequence[SortKey]) -> list[ChunkResult]:
    ordered = list(chunks)
    rank = {id(chunk): position for position, chunk in enumerate(ordered)}
    for key in reversed(keys):  # the last key first: stable sorts compose into the lexicographic order
        descending = key.direction == "desc"
        if key.field == "score":
            ordered.sort(key=lambda c: rank[id(c)], reverse=not descending)
        else:
            dated = [c for c in ordered if c.publication_date]
            undated = [c for c in ordered if not c.publication_date]
            dated.sort(key=lambda c: str(c.publication_date), reverse=descending)
            ordered = dated + undated
    return ordered


def rrf_ties_by_bm25(chunks: list[ChunkResult]) -> list[ChunkResult]:
    """The spec's RRF tie rule: equal fused scores ordered by BM25 rank (OpenSearch uses doc order)."""
    by_id = {chunk.chunk_id: chunk for chunk in chunks}
    bm25_ranking = sorted(
        (c for c in chunks if c.component_scores.bm25 is not None),
        key=lambda c: -(c.component_scores.bm25 or 0.0),
    )
    order = order_by_score_then_rank(
        {c.chunk_id: c.score for c in chunks}, [c.chunk_id for c in bm25_ranking], tolerance=1e-7
    )
    return [by_id[chunk_id] for chunk_id in order]
