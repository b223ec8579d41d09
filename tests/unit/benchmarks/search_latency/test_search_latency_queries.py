"""The latency benchmark's queries and request bodies: drawing, rotation, /v1/search and text-only bodies."""

from __future__ import annotations

import pytest
from unit.benchmarks.search_latency.examples import BM25, MINMAX, RRF, RRF_RERANK

from benchmarks.search_latency.queries import (
    draw_queries,
    rotated,
    search_body,
    text_request,
)
from control_plane.testsets.catalog import Query


def test_queries_are_drawn_in_a_seeded_order_and_cycle_when_short() -> None:
    pool = [Query("q1", "a"), Query("q2", "b"), Query("q3", "c"), Query("q2", "b")]  # q2 twice
    drawn = draw_queries(pool, 7, "seed")
    assert {q.query_id for q in drawn[:3]} == {"q1", "q2", "q3"}
    assert drawn[3:6] == drawn[:3] and drawn[6] == drawn[0]
    assert draw_queries(pool, 2, "seed", skip=1) == drawn[1:3]
    assert draw_queries(list(reversed(pool)), 3, "seed") == drawn[:3]  # file order does not matter
    with pytest.raises(ValueError, match="no queries"):
        draw_queries([], 1, "seed")


def test_rotation_starts_each_query_one_configuration_later() -> None:
    assert rotated(["a", "b", "c"], 0) == ["a", "b", "c"]
    assert rotated(["a", "b", "c"], 1) == ["b", "c", "a"]
    assert rotated(["a", "b", "c"], 5) == ["c", "a", "b"]
    assert rotated([], 3) == []


def test_search_body_sends_what_the_configuration_fixes() -> None:
    assert search_body(BM25, "statins", 10) == {
        "query": "statins",
        "size": 10,
        "components": ["bm25"],
        "fusion_method": "rrf",
        "rank_constant": 60,
        "rerank": False,
        "boosts": False,
    }
    minmax = search_body(MINMAX, "statins", 10)
    assert minmax["fusion_method"] == "weighted"
    assert minmax["weights"] == {"bm25": 0.3, "splade": 0.35, "dense": 0.35}
    assert search_body(RRF_RERANK, "statins", 10)["rerank"] is True


def test_text_request_uses_the_named_pipelines_with_the_api_depth() -> None:
    pipeline, body = text_request(RRF_RERANK, "statins", 10, 100) or ("", {})
    assert pipeline == "hybrid-rrf-rerank"
    assert body["size"] == 100  # the rerank depth, as /v1/search fetches it
    assert body["ext"] == {"rerank": {"query_context": {"query_text": "statins"}}}
    hybrid = body["query"]["hybrid"]
    assert hybrid["pagination_depth"] == 100
    assert [next(iter(q)) for q in hybrid["queries"]] == ["multi_match", "neural_sparse", "neural"]
    assert hybrid["queries"][2]["neural"]["embedding"] == {"query_text": "statins", "k": 100}

    pipeline, body = text_request(BM25, "statins", 10, 100) or ("", {})
    assert pipeline == "hybrid-rrf" and body["size"] == 10 and "ext" not in body
    assert [next(iter(q)) for q in body["query"]["hybrid"]["queries"]] == ["multi_match"]
    assert text_request(MINMAX, "statins", 10, 100) is not None
    assert (text_request(MINMAX, "statins", 10, 100) or ("",))[0] == "hybrid-minmax"
    assert text_request(RRF.model_copy(update={"boosts": True}), "statins", 10, 100) is None
