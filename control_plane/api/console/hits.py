"""One column's hits as the console shows them, from a /v1/search answer or a search pipeline's response:
the record, section, scores (fused and per component), highlights and a route note.

Route notes: a clinical pipeline writes one on every hit (``metadata.clinical_route``, beside the hit's
fields in the Haystack form: the intents and the factor routing lifted it by). /v1/search reports its
intents and boosts once for the answer, so a hit's note says which boost its section matches
(``section boost xF``: routing lifts it by that, scaled by how topical its record is) or that none does,
and whether routing's section fetch added it (no component retrieved it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from control_plane.clinical.intents import Boost
from control_plane.clinical.pipeline import route_note
from control_plane.clinical.route_notes import absent_note, boost_note, intents_label, unboosted_note
from control_plane.clinical.section_routing import route_factor
from control_plane.query.components import COMPONENTS
from control_plane.resources.catalog import HAYSTACK_FIELDS, HAYSTACK_SUFFIX
from control_plane.search.pipeline_query import CLINICAL_PREFIX, reranked
from control_plane.search.postprocess import highlighted
from control_plane.search.results import (
    BoostInfo,
    ChunkResult,
    ComponentScores,
    Highlight,
    SearchMetadata,
    chunk_result,
)
from control_plane.search.section_routing import candidate


class ConsoleHit(BaseModel):
    rank: int
    chunk_id: str
    doc_id: str
    section: str | None
    section_label: str | None
    title_path: str | None
    source: str | None
    is_table: bool
    score: float
    component_scores: ComponentScores
    route_note: str
    text: str
    highlights: list[Highlight]


def console_hit(rank: int, chunk: ChunkResult, note: str) -> ConsoleHit:
    return ConsoleHit(
        rank=rank,
        route_note=note,
        **chunk.model_dump(
            include={
                "chunk_id",
                "doc_id",
                "section",
                "section_label",
                "title_path",
                "source",
                "is_table",
                "score",
                "component_scores",
                "text",
                "highlights",
            }
        ),
    )


def boost(info: BoostInfo) -> Boost:
    """A boost as the answer reports it, back in the form routing matches chunks with."""
    return Boost(
        field=info.field,
        values=tuple(info.values),
        factor=info.factor,
        reason=info.reason,
        intent=info.intent,
        tables_only=info.tables_only,
    )


def search_route_note(chunk: ChunkResult, metadata: SearchMetadata, boosts_on: bool) -> str:
    """What routing could do to a /v1/search hit (see the module docstring)."""
    intents = intents_label(intent.name for intent in metadata.intents)
    if boosts_on and metadata.absent_records:
        return absent_note(intents, metadata.absent_records)
    if not boosts_on or not metadata.boosts:
        return unboosted_note(intents, boosts_on)
    factor = route_factor(candidate(chunk), [boost(b) for b in metadata.boosts])
    fetched = all(getattr(chunk.component_scores, name, None) is None for name in COMPONENTS)
    return boost_note(intents, factor, fetched)


def search_hits(
    results: Sequence[ChunkResult], metadata: SearchMetadata, boosts_on: bool
) -> list[ConsoleHit]:
    return [
        console_hit(rank, chunk, search_route_note(chunk, metadata, boosts_on))
        for rank, chunk in enumerate(results, start=1)
    ]


def client_source(source: Mapping[str, Any], pipeline: str) -> dict[str, Any]:
    """A hit's _source with the fields a ``-haystack`` form renamed for Haystack named back."""
    if not pipeline.endswith(HAYSTACK_SUFFIX):
        return dict(source)
    back = {renamed: field for field, renamed in HAYSTACK_FIELDS.items()}
    return {back.get(name, name): value for name, value in source.items()}


def pipeline_route_note(source: Mapping[str, Any], pipeline: str) -> str:
    note = route_note(source)
    if note is not None:
        return note
    if pipeline.startswith(CLINICAL_PREFIX):
        return "no route note: the pipeline's route step did not answer (the fused order stands)"
    return f"not routed: {pipeline} has no clinical step"


def pipeline_hits(hits: Sequence[Mapping[str, Any]], pipeline: str, question: str) -> list[ConsoleHit]:
    """The response's hits, highlighted as /v1/search highlights (OpenSearch returns no highlights for a
    hybrid query)."""
    found = []
    for rank, hit in enumerate(hits, start=1):
        source = client_source(hit.get("_source") or {}, pipeline)
        chunk = chunk_result({**hit, "_source": source}, reranked(pipeline), tuple(COMPONENTS))
        found.append(console_hit(rank, highlighted(chunk, question), pipeline_route_note(source, pipeline)))
    return found
