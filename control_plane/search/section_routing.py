"""Clinical routing (control_plane/clinical/section_routing.py) applied to /v1/search's result type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from control_plane.clinical.intents import Boost
from control_plane.clinical.record_subject import Declarations
from control_plane.clinical.section_routing import Candidate, routed_order, routed_scores, topical_documents
from control_plane.config.search_settings import SectionRoutingSettings
from control_plane.search.results import ChunkResult


def candidate(chunk: ChunkResult) -> Candidate:
    """What routing needs of a result."""
    fields = (chunk.chunk_id, chunk.doc_id, chunk.score, chunk.intent_hint, chunk.is_table)
    return Candidate(*fields, near_empty=chunk.near_empty)


def topical_records(
    chunks: Sequence[ChunkResult],
    params: SectionRoutingSettings,
    boosts: Sequence[Boost] = (),
    declarations: Declarations | None = None,
) -> dict[str, float]:
    """The records routing may lift sections in (judged on the first ``params.depth`` fused chunks and,
    for a question about many records, on what each declares: ``declarations``), most topical first,
    with their topicality: whose routed sections are fetched, and then routed."""
    return topical_documents([candidate(c) for c in chunks[: params.depth]], params, boosts, declarations)


def route_chunks(
    chunks: Sequence[ChunkResult],
    boosts: Sequence[Boost],
    params: SectionRoutingSettings,
    fetched: Sequence[ChunkResult] = (),
    topical: Mapping[str, float] | None = None,
) -> list[ChunkResult]:
    """The fused chunks (and the fetched sections routing lifts) in routed order, each carrying its
    routed score: what /v1/search returns and the clinical benchmark measures. ``topical``: the
    :func:`topical_records` of these chunks, when they chose the sections fetched."""
    candidates = [candidate(c) for c in chunks]
    scores = routed_scores(candidates, boosts, params, [candidate(c) for c in fetched], topical)
    by_id = {c.chunk_id: c for c in [*fetched, *chunks]}  # a fused chunk wins over its fetched copy
    order = routed_order(scores, [c.chunk_id for c in chunks])
    return [by_id[chunk_id].model_copy(update={"score": scores[chunk_id]}) for chunk_id in order]
