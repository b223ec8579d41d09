"""The documented direct search body (docs/clients/curl.md), built once for every client path."""

from __future__ import annotations

from control_plane.query.components import text_hybrid_query, text_search_body


def test_the_direct_search_body_leaves_the_vectors_out() -> None:
    assert text_search_body("warfarin", 10) == {
        "size": 10,
        "query": text_hybrid_query("warfarin"),
        "_source": {"excludes": ["embedding", "sparse_terms"]},
    }


def test_the_explicit_query_carries_a_pagination_depth_only_when_asked() -> None:
    assert "pagination_depth" not in text_hybrid_query("warfarin")["hybrid"]
    deep = text_hybrid_query("warfarin", pagination_depth=100)["hybrid"]
    assert (
        deep["pagination_depth"] == 100
        and deep["queries"] == text_hybrid_query("warfarin")["hybrid"]["queries"]
    )
