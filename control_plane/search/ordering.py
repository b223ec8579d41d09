"""The order a page is cut from: relevance (the fused, routed order) unless the search asks for
$orderby keys. Sorts are stable, so ties keep their relevance order; chunks without a publication date go
last whichever the direction."""

from __future__ import annotations

from collections.abc import Sequence

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
