"""The pipelines' fusion maths, computed by OpenSearch itself, against hand-computed values."""

from typing import Any

import pytest
from integration.chunks import chunk, ids, index_chunks
from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.fusion.rrf import order_by_score_then_rank, rrf_scores
from control_plane.query.components import (
    COMPONENT_ORDER,
    bm25_clause,
    dense_vector_clause,
    hybrid_query,
    sparse_tokens_clause,
)
from control_plane.resources.versions import Version, pipeline_for_version
from control_plane.search.request import inline_pipeline

pytestmark = pytest.mark.integration

# The spec's component rankings (BM25, SPLADE, dense) that ``spec_index`` reproduces.
SPEC_RANKINGS = [["d1", "d2", "d3"], ["d2", "d1", "d4"], ["d1", "d4", "d2"]]


def _search(
    client: OpenSearch, index: str, query: dict[str, Any], pipeline: str | None = None, **body: Any
) -> dict[str, Any]:
    params = {"search_pipeline": pipeline} if pipeline else {}
    result: dict[str, Any] = client.search(
        index=index, params=params, body={"size": 10, "query": query, **body}
    )
    return result


@pytest.fixture
def spec_index(
    client: OpenSearch, chunk_index: str, settings: Settings
) -> tuple[str, dict[str, dict[str, Any]]]:
    """Documents whose components rank BM25 [d1,d2,d3], SPLADE [d2,d1,d4], dense [d1,d4,d2]."""
    dim = settings.index.knn.dimension
    index_chunks(
        client,
        chunk_index,
        [
            chunk("d1", "alpha alpha alpha", dimension=dim, vector=[1.0, 0.0], sparse={"x": 2.0}),
            chunk("d2", "alpha alpha beta gamma", dimension=dim, vector=[0.6, 0.8], sparse={"x": 3.0}),
            chunk(
                "d3",
                "alpha beta gamma delta epsilon zeta",
                dimension=dim,
                vector=[-1.0, 0.0],
                sparse={"y": 1.0},
            ),
            chunk("d4", "omega", dimension=dim, vector=[0.8, 0.6], sparse={"x": 1.0}),
        ],
    )
    clauses = {
        "bm25": bm25_clause("alpha"),
        "splade": sparse_tokens_clause({"x": 1.0}),
        "dense": dense_vector_clause([1.0] + [0.0] * (dim - 1), k=3),
    }
    return chunk_index, clauses


def test_component_rankings_are_the_spec_ones(client: OpenSearch, spec_index: tuple[str, Any]) -> None:
    index, clauses = spec_index
    assert ids(_search(client, index, clauses["bm25"])) == ["d1", "d2", "d3"]
    assert ids(_search(client, index, clauses["splade"])) == ["d2", "d1", "d4"]
    assert ids(_search(client, index, clauses["dense"])) == ["d1", "d4", "d2"]


def test_rrf_spec_case_comes_out_of_opensearch(
    client: OpenSearch, spec_index: tuple[str, Any], settings: Settings
) -> None:
    index, clauses = spec_index
    classic = inline_pipeline(settings, "rrf", None, COMPONENT_ORDER, 60)
    response = _search(client, index, hybrid_query(clauses), search_pipeline=classic)
    fused = {h["_source"]["doc_id"]: round(h["_score"], 3) for h in response["hits"]["hits"]}
    assert ids(response) == ["d1", "d2", "d4", "d3"]
    assert fused == {"d1": 0.049, "d2": 0.048, "d4": 0.032, "d3": 0.016}
    exact = rrf_scores(SPEC_RANKINGS, 60)
    for hit in response["hits"]["hits"]:
        assert hit["_score"] == pytest.approx(exact[hit["_source"]["doc_id"]], rel=1e-6)


def test_weighted_rrf_multiplies_each_reciprocal_rank_by_its_weight(
    client: OpenSearch, spec_index: tuple[str, Any], settings: Settings
) -> None:
    """Weights 0.8/0.1/0.1: d1 0.8/61 + 0.1/62 + 0.1/61 = 0.016367, d2 0.8/62 + 0.1/61 + 0.1/63 =
    0.016130, d3 0.8/63 = 0.012698, d4 0.1/63 + 0.1/62 = 0.003200: BM25's d3 now before d4, which
    classic RRF puts third (0.032 against 0.016)."""
    index, clauses = spec_index
    weights = {"bm25": 0.8, "splade": 0.1, "dense": 0.1}
    weighted = inline_pipeline(settings, "rrf", weights, COMPONENT_ORDER, 60)
    response = _search(client, index, hybrid_query(clauses), search_pipeline=weighted)
    fused = {h["_source"]["doc_id"]: round(h["_score"], 6) for h in response["hits"]["hits"]}
    assert ids(response) == ["d1", "d2", "d3", "d4"]
    assert fused == {"d1": 0.016367, "d2": 0.01613, "d3": 0.012698, "d4": 0.0032}


def test_the_rank_constant_reaches_the_node(
    client: OpenSearch, spec_index: tuple[str, Any], settings: Settings
) -> None:
    """k = 1: d1 1/2 + 1/3 + 1/2 = 1.3333 (k = 60 would give 0.0489). Before 3.1 the node reads k from
    another place, which the pipeline's form for its version puts it in."""
    index, clauses = spec_index
    version = Version.parse(client.info()["version"]["number"])
    pipeline = pipeline_for_version(version, inline_pipeline(settings, "rrf", None, COMPONENT_ORDER, 1))
    response = _search(client, index, hybrid_query(clauses), search_pipeline=pipeline)
    exact = rrf_scores(SPEC_RANKINGS, 1)
    assert round(exact["d1"], 4) == 1.3333
    for hit in response["hits"]["hits"]:
        assert hit["_score"] == pytest.approx(exact[hit["_source"]["doc_id"]], rel=1e-6)


def test_the_named_rrf_pipeline_fuses_with_the_configured_weights(
    client: OpenSearch, spec_index: tuple[str, Any], applied: Settings
) -> None:
    index, clauses = spec_index
    configured = applied.fusion.rrf.weights
    response = _search(client, index, hybrid_query(clauses), "hybrid-rrf")
    exact = rrf_scores(SPEC_RANKINGS, 60, configured.in_order() if configured is not None else None)
    for hit in response["hits"]["hits"]:
        assert hit["_score"] == pytest.approx(exact[hit["_source"]["doc_id"]], rel=1e-6)


def test_minmax_scores_are_the_weighted_mean_of_normalised_scores(
    client: OpenSearch, spec_index: tuple[str, Any], settings: Settings
) -> None:
    index, clauses = spec_index
    response = _search(client, index, hybrid_query(clauses), "hybrid-minmax-explain", explain=True)
    weights = settings.fusion.weights.in_order()
    # Raw component scores (known from the component rankings above) by document, in sub-query order.
    raw = {
        "d1": (0.2628, 2.0, 2.0),
        "d2": (0.2143, 3.0, 1.6),
        "d3": (0.1255, None, None),
        "d4": (None, 1.0, 1.8),
    }
    bounds = [(0.1255, 0.2628), (1.0, 3.0), (1.6, 2.0)]
    for hit in response["hits"]["hits"]:
        doc_id = hit["_source"]["doc_id"]
        assert hit["_explanation"]["description"].startswith(f"arithmetic_mean, weights {weights}")
        expected = sum(
            w * (s - lo) / (hi - lo)
            for w, s, (lo, hi) in zip(weights, raw[doc_id], bounds, strict=True)
            if s is not None
        )
        # min-max maps each sub-query's lowest score to 0.001 rather than 0 (visible in the
        # explanation), which moves fused scores by at most a few thousandths.
        assert hit["_score"] == pytest.approx(expected, abs=2e-3), doc_id
    # d1 is first in BM25 and dense and second in SPLADE: it must lead the fused list.
    assert ids(response) == ["d1", "d2", "d4", "d3"]


def test_rrf_ties_break_by_bm25_rank(client: OpenSearch, chunk_index: str, settings: Settings) -> None:
    """x and y tie (each is rank 1 in one list, rank 2 in the other). OpenSearch orders equal fused
    scores by Lucene document order (y, indexed first, comes first); the documented rule re-orders
    ties by the BM25 rank, which puts x (BM25 rank 1) first."""
    dim = settings.index.knn.dimension
    index_chunks(
        client,
        chunk_index,
        [
            chunk("y", "alpha beta gamma", dimension=dim, vector=[1.0, 0.0], sparse={"z": 1.0}),
        ],
    )
    index_chunks(
        client,
        chunk_index,
        [
            chunk("x", "alpha", dimension=dim, vector=[0.5, 0.5], sparse={"z": 1.0}),
        ],
    )
    clauses = {"bm25": bm25_clause("alpha"), "dense": dense_vector_clause([1.0] + [0.0] * (dim - 1), k=2)}
    assert ids(_search(client, chunk_index, clauses["bm25"])) == ["x", "y"]
    assert ids(_search(client, chunk_index, clauses["dense"])) == ["y", "x"]
    classic = inline_pipeline(settings, "rrf", None, ["bm25", "dense"], 60)
    responses = [
        _search(client, chunk_index, hybrid_query(clauses), search_pipeline=classic) for _ in range(3)
    ]
    raw_orders = {tuple(ids(r)) for r in responses}
    assert raw_orders == {("y", "x")}, "OpenSearch's own tie order is Lucene doc order, and stable"
    scores = {h["_source"]["doc_id"]: h["_score"] for h in responses[0]["hits"]["hits"]}
    assert scores["x"] == scores["y"] == pytest.approx(1 / 61 + 1 / 62, rel=1e-6)
    assert order_by_score_then_rank(scores, ids(_search(client, chunk_index, clauses["bm25"]))) == ["x", "y"]
