"""What a ``retrieval.completed`` event says about a search (pure): the components used and dropped, the
fusion, where the time went per component, what each component contributed to the returned results,
the total time and the result count, and the tenant. The query text only when
``events.include_query`` allows it (queries may hold patient details)."""

from __future__ import annotations

from typing import Any

from control_plane.query.components import COMPONENTS
from control_plane.search.results import ChunkResult, SearchResponse


def returned_chunks(answer: SearchResponse) -> list[ChunkResult]:
    """Every chunk the answer returns (a document's chunks at document granularity)."""
    chunks: list[ChunkResult] = []
    for result in answer.results:
        chunks.extend([result] if isinstance(result, ChunkResult) else result.chunks)
    return chunks


def contributions(answer: SearchResponse) -> dict[str, int]:
    """Per component used: how many returned chunks it retrieved (its score is set on them)."""
    chunks = returned_chunks(answer)
    return {
        component: sum(1 for c in chunks if getattr(c.component_scores, component, None) is not None)
        for component in COMPONENTS
        if component in answer.metadata.components_used
    }


def retrieval_data(answer: SearchResponse, tenant: str, include_query: bool = False) -> dict[str, Any]:
    meta = answer.metadata
    timings = meta.timings
    data: dict[str, Any] = {
        "tenant": tenant,
        "components_used": list(meta.components_used),
        "component_errors": list(meta.component_errors),
        "fusion_method": meta.fusion.method,
        "fusion": meta.fusion.model_dump(mode="json", exclude_none=True),
        "durations_ms": {
            "encode": dict(timings.encode_ms),
            "sub_queries": dict(timings.components_ms or {}),
            "opensearch": timings.opensearch_ms,
            "postprocess": timings.postprocess_ms,
        },
        "contributions": contributions(answer),
        "total_ms": timings.total_ms,
        "result_count": len(answer.results),
        "granularity": meta.granularity,
        "query_type": meta.query_type,
        "reranked": meta.reranked,
        "partial": meta.partial,
    }
    if include_query:
        data["query"] = meta.query
    return data
