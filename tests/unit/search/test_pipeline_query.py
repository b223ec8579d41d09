"""The body a pipeline query sends (`biohybrid query` and the console): the question alone through a
clinical pipeline, the explicit text hybrid through the others; filters, names and the rerank depth."""

from __future__ import annotations

from control_plane.query.components import plain_search_body, text_search_body
from control_plane.search.pipeline_query import PipelineQuery, pipeline_body, reranked

TENANT = ({"term": {"tenant_id": "t1"}},)


def test_without_filters_or_names_the_bodies_are_the_documented_ones() -> None:
    assert pipeline_body(PipelineQuery("q", "clinical-rrf", 5), 20) == plain_search_body("q", 5)
    assert pipeline_body(PipelineQuery("q", "hybrid-rrf", 5), 20) == text_search_body("q", 5)


def test_a_clinical_body_filters_in_a_bool_the_rewrite_reads() -> None:
    body = pipeline_body(PipelineQuery("q", "clinical-minmax", 5, filters=TENANT, named=True), 20)
    assert body["query"] == {
        "bool": {"must": [{"match": {"text": "q"}}], "filter": [{"term": {"tenant_id": "t1"}}]}
    }


def test_a_hybrid_body_filters_the_hybrid_and_the_knn_and_names_its_sub_queries() -> None:
    body = pipeline_body(PipelineQuery("q", "hybrid-minmax", 5, filters=TENANT, named=True), 20)
    hybrid = body["query"]["hybrid"]
    assert hybrid["filter"] == {"bool": {"filter": [{"term": {"tenant_id": "t1"}}]}}
    bm25, splade, dense = hybrid["queries"]
    assert bm25["multi_match"]["_name"] == "bm25"
    assert splade["neural_sparse"]["sparse_terms"]["_name"] == "splade"
    assert dense["bool"]["_name"] == "dense"
    assert dense["bool"]["must"][0]["neural"]["embedding"]["filter"] == hybrid["filter"]


def test_a_hybrid_rerank_form_fetches_the_rerank_depth() -> None:
    body = pipeline_body(PipelineQuery("q", "hybrid-rrf-rerank", 5), 20)
    assert body["size"] == 20 and body["ext"] == {"rerank": {"query_context": {"query_text": "q"}}}
    assert pipeline_body(PipelineQuery("q", "hybrid-rrf-rerank", 30), 20)["size"] == 30
    assert "ext" not in pipeline_body(PipelineQuery("q", "clinical-rrf-rerank", 5), 20)


def test_only_a_hybrid_rerank_form_scores_by_the_cross_encoder() -> None:
    assert [reranked(p) for p in ("hybrid-rrf-rerank", "clinical-rrf-rerank", "hybrid-rrf")] == [
        True,
        False,
        False,
    ]
