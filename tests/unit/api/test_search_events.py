"""What retrieval.completed says about a search, computed from the answer: components, fusion, time per
component, each component's contribution to the returned chunks; the query only when allowed."""

from __future__ import annotations

from control_plane.api.search_events import contributions, retrieval_data
from control_plane.search.results import (
    ChunkResult,
    ComponentScores,
    DocumentResult,
    FusionInfo,
    SearchMetadata,
    SearchResponse,
    Timings,
)


def _chunk(chunk_id: str, bm25: float | None, splade: float | None, dense: float | None) -> ChunkResult:
    scores = ComponentScores(bm25=bm25, splade=splade, dense=dense)
    return ChunkResult(chunk_id=chunk_id, doc_id=chunk_id[0], text="t", score=1.0, component_scores=scores)


def _metadata(components: list[str]) -> SearchMetadata:
    return SearchMetadata(
        query="patient with stage II breast cancer",
        query_type="complex",
        granularity="chunk",
        fusion=FusionInfo(method="rrf", rank_constant=60),
        components_used=components,
        component_errors=["dense_timeout"] if "dense" not in components else [],
        total_candidates=40,
        **{"from": 0},
        size=3,
        timings=Timings(
            total_ms=85.5,
            encode_ms={"splade": 11.0},
            opensearch_ms=30.0,
            postprocess_ms=2.5,
            components_ms={"bm25": 4.0, "splade": 6.0},
        ),
    )


def test_chunk_answers_count_what_each_used_component_retrieved() -> None:
    answer = SearchResponse(
        results=[_chunk("a1", 3.0, 0.5, None), _chunk("b1", None, 0.2, None), _chunk("c1", 1.0, None, None)],
        metadata=_metadata(["bm25", "splade"]),
    )
    data = retrieval_data(answer, "acme")
    assert data == {
        "tenant": "acme",
        "components_used": ["bm25", "splade"],
        "component_errors": ["dense_timeout"],
        "fusion_method": "rrf",
        "fusion": {"method": "rrf", "rank_constant": 60},
        "durations_ms": {
            "encode": {"splade": 11.0},
            "sub_queries": {"bm25": 4.0, "splade": 6.0},
            "opensearch": 30.0,
            "postprocess": 2.5,
        },
        "contributions": {"bm25": 2, "splade": 2},
        "total_ms": 85.5,
        "result_count": 3,
        "granularity": "chunk",
        "query_type": "complex",
        "reranked": False,
        "partial": False,
    }


def test_document_answers_count_their_chunks_and_the_query_needs_a_setting() -> None:
    document = DocumentResult(
        doc_id="a", score=2.0, chunks=[_chunk("a1", 1.0, None, 0.9), _chunk("a2", None, None, 0.8)]
    )
    answer = SearchResponse(results=[document], metadata=_metadata(["bm25", "splade", "dense"]))
    assert contributions(answer) == {"bm25": 1, "splade": 0, "dense": 2}
    assert "query" not in retrieval_data(answer, "acme")
    assert (
        retrieval_data(answer, "acme", include_query=True)["query"] == "patient with stage II breast cancer"
    )
    assert retrieval_data(answer, "acme")["result_count"] == 1
