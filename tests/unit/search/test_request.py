from typing import Any

import pytest

from control_plane.config.settings import Settings
from control_plane.query.components import QueryEncodings, product_text_hybrid
from control_plane.resources.versions import Version
from control_plane.search.request import build_request, fetch_window, filter_clauses
from control_plane.search.spec import Filters, SearchSpec

ENCODINGS = QueryEncodings(dense_vector=[0.1, 0.2], sparse_tokens={"statin": 1.5})
WEIGHTS = {"bm25": 0.3, "splade": 0.35, "dense": 0.35}


def _build(spec: SearchSpec, **kwargs: Any) -> dict[str, Any]:
    spec = spec.model_copy(update={"candidate_depth": spec.candidate_depth or 100})
    options: dict[str, Any] = {
        "tenant_id": "t1",
        "index": "chunks-*",
        "components": spec.components,
        "weights": WEIGHTS,
        "encodings": ENCODINGS,
    }
    options.update(kwargs)
    return build_request(spec, Settings(), **options).body


def test_sub_queries_are_named_and_in_component_order() -> None:
    body = _build(SearchSpec(query="statin"))
    bm25, splade, dense = body["query"]["hybrid"]["queries"]
    assert bm25["multi_match"]["_name"] == "bm25"
    assert splade["neural_sparse"]["sparse_terms"] == {"query_tokens": {"statin": 1.5}, "_name": "splade"}
    assert dense["bool"]["_name"] == "dense"
    knn = dense["bool"]["must"][0]["knn"]["embedding"]
    assert knn["vector"] == [0.1, 0.2] and knn["k"] == 100
    assert knn["method_parameters"] == {"ef_search": 200}  # max(settings ef_search 200, k 100)


def test_without_a_hybrid_filter_each_sub_query_carries_the_tenant_filter_and_keeps_its_name() -> None:
    with_filter = _build(SearchSpec(query="statin"))["query"]["hybrid"]
    without = _build(SearchSpec(query="statin"), node_version=Version(2, 19, 1))["query"]["hybrid"]
    assert "filter" not in without and without["pagination_depth"] == with_filter["pagination_depth"]
    assert len(without["queries"]) == 3
    for wrapped, plain in zip(without["queries"], with_filter["queries"], strict=True):
        assert wrapped == {"bool": {"must": [plain], "filter": [with_filter["filter"]]}}
    assert without["queries"][0]["bool"]["filter"][0]["bool"]["filter"][0] == {"term": {"tenant_id": "t1"}}


def test_tenant_filter_is_on_the_hybrid_query_and_inside_knn() -> None:
    body = _build(SearchSpec(query="statin"))
    hybrid_filter = body["query"]["hybrid"]["filter"]["bool"]["filter"]
    assert hybrid_filter[0] == {"term": {"tenant_id": "t1"}}
    knn = body["query"]["hybrid"]["queries"][2]["bool"]["must"][0]["knn"]["embedding"]
    assert knn["filter"]["bool"]["filter"][0] == {"term": {"tenant_id": "t1"}}


def test_user_filters_follow_the_tenant() -> None:
    filters = Filters.model_validate(
        {"source": ["ctgov"], "intent": ["ae"], "publication_date": {"gte": "2020-01-01"}}
    )
    assert filter_clauses("t1", filters) == [
        {"term": {"tenant_id": "t1"}},
        {"terms": {"source": ["ctgov"]}},
        {"terms": {"intent_hint": ["ae"]}},
        {"range": {"publication_date": {"gte": "2020-01-01"}}},
    ]


def test_weighted_pipeline_gets_the_weights_of_the_components_in_use() -> None:
    spec = SearchSpec(query="q", components=("bm25", "dense"), fusion_method="weighted")
    body = _build(spec, weights={"bm25": 0.4, "dense": 0.6})
    processor = body["search_pipeline"]["phase_results_processors"][0]["normalization-processor"]
    assert processor["combination"]["parameters"]["weights"] == [0.4, 0.6]
    assert len(body["query"]["hybrid"]["queries"]) == 2


def test_rrf_pipeline_carries_the_rank_constant() -> None:
    body = _build(SearchSpec(query="q", rank_constant=20), weights=None)
    processor = body["search_pipeline"]["phase_results_processors"][0]["score-ranker-processor"]
    assert processor["combination"] == {"technique": "rrf", "rank_constant": 20}


def test_weighted_rrf_pipeline_gets_the_weights_of_the_components_in_use() -> None:
    spec = SearchSpec(query="q", components=("bm25", "dense"))
    body = _build(spec, weights={"bm25": 0.75, "dense": 0.25})
    processor = body["search_pipeline"]["phase_results_processors"][0]["score-ranker-processor"]
    assert processor["combination"] == {
        "technique": "rrf",
        "rank_constant": 60,
        "parameters": {"weights": [0.75, 0.25]},
    }


def test_rerank_adds_the_processor_the_query_context_and_the_depth() -> None:
    body = _build(SearchSpec(query="q", rerank=True), rerank_model_id="m1", rerank_top_n=50)
    rerank = body["search_pipeline"]["response_processors"][-1]["rerank"]
    assert rerank["ml_opensearch"] == {"model_id": "m1"}
    assert body["ext"] == {"rerank": {"query_context": {"query_text": "q"}}}
    assert body["size"] == 50  # at least the depth, so the service sees every hit it reranks
    deeper = _build(
        SearchSpec.model_validate({"query": "q", "from": 60, "size": 10, "rerank": True}),
        rerank_model_id="m1",
        rerank_top_n=50,
    )
    assert deeper["size"] == 70  # a page past the depth is fetched whole: the tail keeps the fused order


def test_pages_are_slices_of_one_list_fetched_from_the_top() -> None:
    body = _build(SearchSpec.model_validate({"query": "q", "from": 20, "size": 10}))
    assert (body["from"], body["size"]) == (0, 30)
    assert fetch_window(SearchSpec(query="q", granularity="document", candidate_depth=100), 100) == 300


def test_a_routed_search_fetches_at_least_the_routing_depth_and_leaves_sub_queries_alone() -> None:
    plain = _build(SearchSpec(query="q", size=10))
    routed = _build(SearchSpec(query="q", size=10), routing_depth=50)
    assert (plain["size"], routed["size"]) == (10, 50)
    assert routed["query"] == plain["query"]  # boosts are routed after fusion, not inside sub-queries


def test_a_dense_component_without_a_vector_is_an_error() -> None:
    with pytest.raises(ValueError, match="query vector"):
        _build(SearchSpec(query="q"), encodings=QueryEncodings(sparse_tokens={"a": 1.0}))


def test_doc_only_sparse_sends_the_text_and_the_tokenizer_model() -> None:
    encodings = QueryEncodings(dense_vector=[0.1], sparse_model_id="tok")
    body = _build(SearchSpec(query="statin", components=("splade",)), encodings=encodings)
    sparse = body["query"]["hybrid"]["queries"][0]["neural_sparse"]["sparse_terms"]
    assert sparse == {"query_text": "statin", "model_id": "tok", "_name": "splade"}


def test_an_unresolved_candidate_depth_is_an_error() -> None:
    with pytest.raises(ValueError, match="resolved"):
        build_request(
            SearchSpec(query="q"),
            Settings(),
            tenant_id="t",
            index="i",
            components=("bm25",),
            weights={"bm25": 1.0},
            encodings=ENCODINGS,
        )


def test_a_seismic_index_gets_method_parameters_with_the_depth_and_the_filters() -> None:
    settings = Settings.model_validate(
        {"index": {"sparse": {"method": "seismic", "top_n": 8, "heap_factor": 0.9}}}
    )
    spec = SearchSpec(query="statin", components=("splade",), candidate_depth=50)
    encodings = QueryEncodings(sparse_tokens={"2424": 1.5})
    body = build_request(
        spec,
        settings,
        tenant_id="t1",
        index="chunks-*",
        components=("splade",),
        weights=WEIGHTS,
        encodings=encodings,
    ).body
    sparse = body["query"]["hybrid"]["queries"][0]["neural_sparse"]["sparse_terms"]
    assert sparse == {
        "query_tokens": {"2424": 1.5},
        "method_parameters": {
            "top_n": 8,
            "heap_factor": 0.9,
            "k": 50,
            "filter": {"bool": {"filter": [{"term": {"tenant_id": "t1"}}]}},
        },
        "_name": "splade",
    }


def test_the_api_and_the_clinical_pipelines_build_one_hybrid_shape() -> None:
    # One builder (query/components.py product_hybrid): only how a component encodes differs between
    # /v1/search (vectors, query tokens) and the pipelines (query text for ml-commons to encode).
    question = "NCT01234567 statin"
    api = _build(SearchSpec(query=question))["query"]["hybrid"]
    text = product_text_hybrid(question, 100, [{"term": {"tenant_id": "t1"}}], ef_search=200)["hybrid"]
    assert api["filter"] == text["filter"] and api["pagination_depth"] == text["pagination_depth"] == 100
    assert [_names(q) for q in api["queries"]] == [_names(q) for q in text["queries"]]
    assert [_names(q) for q in api["queries"]] == [["bm25"], ["splade"], ["dense"]]
    assert api["queries"][0] == text["queries"][0]  # BM25, the named record lifted, is the same clause
    lifted = {"terms": {"identifiers.keyword": ["NCT01234567"], "boost": 1000.0}}
    assert all(q["bool"]["should"][1] == lifted for q in (*api["queries"], *text["queries"]))
    knn = api["queries"][2]["bool"]["should"][0]["bool"]["must"][0]["knn"]["embedding"]
    neural = text["queries"][2]["bool"]["should"][0]["bool"]["must"][0]["neural"]["embedding"]
    for key in ("filter", "method_parameters", "k"):
        assert knn[key] == neural[key], key


def _names(node: Any) -> list[str]:
    """Every ``_name`` in a clause, depth first."""
    if isinstance(node, dict):
        own = [node["_name"]] if isinstance(node.get("_name"), str) else []
        return own + [name for value in node.values() for name in _names(value)]
    if isinstance(node, list):
        return [name for value in node for name in _names(value)]
    return []
