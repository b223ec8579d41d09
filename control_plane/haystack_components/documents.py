"""A search result (ChunkResult, from /v1/search or parsed from an OpenSearch hit) as a Haystack Document:
the chunk's text as content, its id, its score, and in meta where it came from (doc, section, offsets)
and what scored it (component scores); a PDF chunk's meta also has its ``layout`` (pages, line boxes)."""

from __future__ import annotations

from typing import Any

from haystack import Document

from control_plane.search.results import ChunkResult

META_FIELDS = (
    "doc_id",
    "title_path",
    "section",
    "section_label",
    "intent_hint",
    "is_table",
    "source",
    "doc_type",
    "publication_date",
    "start",
    "end",
)


def to_document(result: ChunkResult) -> Document:
    meta: dict[str, Any] = {name: getattr(result, name) for name in META_FIELDS}
    meta["component_scores"] = result.component_scores.model_dump(exclude_none=True)
    if result.layout is not None:
        meta["layout"] = result.layout.model_dump()
    return Document(id=result.chunk_id, content=result.text, score=result.score, meta=meta)
