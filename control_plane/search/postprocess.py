"""After OpenSearch answers: neighbour merging, the requested order (ordering.py), document aggregation,
highlight offsets, and the page cut from the fused list (so pages concatenate to the unpaginated ranking)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from control_plane.ingestion.layout import merge_layouts
from control_plane.search.documents import aggregate_by_document
from control_plane.search.highlights import highlight_spans
from control_plane.search.neighbours import ChunkHit, merge_neighbours
from control_plane.search.ordering import ordered_chunks
from control_plane.search.results import ChunkResult, DocumentResult, Highlight, Layout
from control_plane.search.spec import SearchSpec


def shape_results(
    chunks: Sequence[ChunkResult],
    spec: SearchSpec,
    embeddings: Mapping[str, Sequence[float]] | None = None,
    token_counts: Mapping[str, int] | None = None,
) -> list[ChunkResult] | list[DocumentResult]:
    ordered = list(chunks)
    if spec.merge_neighbours:
        ordered = _merged(ordered, embeddings or {}, token_counts or {})
    if spec.order_by:
        ordered = ordered_chunks(ordered, spec.order_by)
    page = slice(spec.from_, spec.from_ + spec.size)
    if spec.granularity == "document":
        documents = _documents(ordered)[page]
        if spec.highlight:
            documents = [
                d.model_copy(update={"chunks": [highlighted(c, spec.query) for c in d.chunks]})
                for d in documents
            ]
        return documents
    selected = ordered[page]
    return [highlighted(c, spec.query) for c in selected] if spec.highlight else selected


def highlighted(chunk: ChunkResult, query: str) -> ChunkResult:
    """A copy of ``chunk`` with the query's highlight offsets (the fused result itself stays as it was)."""
    spans = highlight_spans(chunk.text, query)
    return chunk.model_copy(
        update={"highlights": [Highlight(start=s.start, end=s.end, text=s.text) for s in spans]}
    )


def _passage(chunk: ChunkResult, embedding: Sequence[float] | None, tokens: int) -> ChunkHit:
    """The chunk as neighbour merging sees it. A chunk without offsets can't be placed next to another:
    it gets a document of its own."""
    return ChunkHit(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id if chunk.start is not None else f"{chunk.doc_id}#{chunk.chunk_id}",
        score=chunk.score,
        start=chunk.start if chunk.start is not None else 0,
        end=chunk.end if chunk.end is not None else len(chunk.text),
        text=chunk.text,
        token_count=tokens,
        embedding=tuple(embedding) if embedding is not None else None,
    )


def _merged(
    chunks: list[ChunkResult], embeddings: Mapping[str, Sequence[float]], tokens: Mapping[str, int]
) -> list[ChunkResult]:
    """The ranking after neighbour merging, as results: a merged passage keeps the identity of its
    best-ranked member (merge_pair's rule) with the merged text, offsets, score and members."""
    by_id: dict[str, ChunkResult] = {}
    for chunk in chunks:
        by_id.setdefault(chunk.chunk_id, chunk)
    passages = [_passage(c, embeddings.get(c.chunk_id), tokens.get(c.chunk_id, 0)) for c in chunks]
    merged: list[ChunkResult] = []
    for passage in merge_neighbours(passages):
        result = by_id[passage.chunk_id]
        if len(passage.merged_from) > 1:
            result = result.model_copy(
                update={
                    "text": passage.text,
                    "start": passage.start,
                    "end": passage.end,
                    "score": passage.score,
                    "merged_from": list(passage.merged_from),
                    "layout": _merged_layout([by_id[m] for m in passage.merged_from if m in by_id]),
                }
            )
        merged.append(result)
    return merged


def _merged_layout(members: list[ChunkResult]) -> Layout | None:
    """A merged passage's layout: its members' boxes in text order (None when none has a layout)."""
    ordered = sorted(members, key=lambda member: member.start or 0)
    merged = merge_layouts(m.layout.model_dump() if m.layout else None for m in ordered)
    return Layout.model_validate(merged) if merged else None


def _documents(chunks: list[ChunkResult]) -> list[DocumentResult]:
    return [
        DocumentResult(
            doc_id=doc.doc_id,
            score=doc.score,
            title_path=doc.chunks[0].title_path,
            source=doc.chunks[0].source,
            chunks=list(doc.chunks),
        )
        for doc in aggregate_by_document(chunks, method="max", best_chunks=3)
    ]


def source_side_fields(hits: Sequence[Mapping[str, Any]]) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Embeddings and token counts by chunk id, read from hits fetched with them (neighbour merging)."""
    embeddings: dict[str, list[float]] = {}
    tokens: dict[str, int] = {}
    for hit in hits:
        source = hit.get("_source") or {}
        chunk_id = str(source.get("chunk_id", hit.get("_id")))
        if source.get("embedding") is not None:
            embeddings[chunk_id] = [float(x) for x in source["embedding"]]
        if source.get("token_count") is not None:
            tokens[chunk_id] = int(source["token_count"])
    return embeddings, tokens
