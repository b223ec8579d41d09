"""Reading SearchService answers: documents with each component's best chunk score, degradation."""

from __future__ import annotations

from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.evaluation.service_retriever import degradation, evaluation_service, retrieved_documents
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.search.results import (
    ChunkResult,
    ComponentScores,
    DocumentResult,
    FusionInfo,
    SearchMetadata,
    SearchResponse,
    Timings,
)


def _chunk(chunk_id: str, score: float, **scores: float) -> ChunkResult:
    return ChunkResult(
        chunk_id=chunk_id,
        doc_id=chunk_id.split(":")[0],
        text="t",
        score=score,
        component_scores=ComponentScores(**scores),
    )


def _metadata(errors: list[str], reranker_error: str | None = None) -> SearchMetadata:
    return SearchMetadata(
        query="q",
        query_type="paraphrase",
        granularity="document",
        fusion=FusionInfo(method="rrf", rank_constant=60),
        components_used=["bm25", "dense"],
        component_errors=errors,
        reranker_error=reranker_error,
        total_candidates=3,
        from_=0,
        size=10,
        timings=Timings(total_ms=1.0),
    )


def test_document_results_take_each_components_best_chunk_score() -> None:
    response = SearchResponse(
        results=[
            DocumentResult(
                doc_id="d1",
                score=0.9,
                chunks=[_chunk("d1:chunk:0", 0.9, bm25=2.0), _chunk("d1:chunk:3", 0.5, bm25=4.0, dense=0.7)],
            ),
            DocumentResult(doc_id="d2", score=0.4, chunks=[_chunk("d2:chunk:1", 0.4, splade=3.0)]),
        ],
        metadata=_metadata([]),
    )
    documents = retrieved_documents(response)
    assert [(d.doc_id, d.score) for d in documents] == [("d1", 0.9), ("d2", 0.4)]
    assert documents[0].component_scores == {"bm25": 4.0, "splade": None, "dense": 0.7}
    assert documents[1].component_scores == {"bm25": None, "splade": 3.0, "dense": None}
    assert degradation(response) == []


def test_chunk_results_keep_each_documents_first_chunk_and_report_degradation() -> None:
    response = SearchResponse(
        results=[
            _chunk("d1:chunk:0", 0.9, bm25=1.0),
            _chunk("d2:chunk:0", 0.8),
            _chunk("d1:chunk:1", 0.7, dense=0.2),
        ],
        metadata=_metadata(["splade_timeout"], reranker_error="timeout"),
    )
    documents = retrieved_documents(response)
    assert [(d.doc_id, d.score) for d in documents] == [("d1", 0.9), ("d2", 0.8)]
    assert documents[0].component_scores == {"bm25": 1.0, "splade": None, "dense": None}
    assert degradation(response) == ["splade_timeout", "rerank_timeout"]


def test_evaluation_service_has_the_evaluation_budgets_and_the_rest_of_the_settings() -> None:
    settings = load_settings(environ={})
    timeouts = load_evaluation_settings(environ={}).timeouts
    service = evaluation_service(make_client(settings.opensearch), settings, timeouts)
    search = service.settings.search
    assert (search.component_timeout_ms, search.rerank_timeout_ms, search.opensearch_timeout_ms) == (
        timeouts.component_ms,
        timeouts.rerank_ms,
        timeouts.opensearch_ms,
    )
    assert (
        search.index_pattern == settings.search.index_pattern and service.settings.models == settings.models
    )
    assert settings.search.component_timeout_ms != search.component_timeout_ms  # the API keeps its own
