"""The search's degradation decisions, without a cluster: which components stay, why a rerank was not
applied, and the reranked order of the hits."""

from __future__ import annotations

from control_plane.search.degradation import (
    RERANK_REASONS,
    rerank_call_failure,
    rerank_fallback_reason,
    reranked_hits,
    usable_components,
)

ALL = ["bm25", "splade", "dense"]


# -- components -------------------------------------------------------------------------------------


def test_components_without_an_encoding_are_dropped_bm25_never() -> None:
    assert usable_components(ALL, {"dense"}) == ["bm25", "dense"]
    assert usable_components(ALL, set()) == ["bm25"]
    assert usable_components(["splade", "dense"], set()) == []  # the service answers 503 then


def test_doc_only_splade_needs_no_query_encoding() -> None:
    assert usable_components(ALL, set(), doc_only_sparse_id="m-1") == ["bm25", "splade"]


def test_request_order_is_kept() -> None:
    assert usable_components(["dense", "bm25"], {"dense"}) == ["dense", "bm25"]


# -- rerank -----------------------------------------------------------------------------------------


def test_the_service_says_whether_it_reranked() -> None:
    assert rerank_fallback_reason("true", None) is None
    assert rerank_fallback_reason("false", "timeout") == "timeout"
    assert rerank_fallback_reason("false", "gpu_unavailable") == "gpu_unavailable"
    # a service that does not say ran no model under the budget
    assert rerank_fallback_reason(None, None) == "unavailable"
    assert rerank_fallback_reason("false", "something new") == "unavailable"
    assert set(RERANK_REASONS) == {"timeout", "overloaded", "unavailable", "gpu_unavailable"}


def test_a_rerank_call_without_an_answer_names_its_reason() -> None:
    assert rerank_call_failure("timeout", None) == "timeout"
    assert rerank_call_failure("unavailable", None) == "unavailable"  # connection refused
    assert rerank_call_failure("error", 429) == "overloaded"  # the caller's share of the service is full
    assert rerank_call_failure("error", 503) == "unavailable"
    assert rerank_call_failure("error", 404) == "unavailable"  # the model is not served there


def test_hits_take_the_service_order_and_scores_the_rest_follow_in_fused_order() -> None:
    fused = (("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.1))
    hits = [{"_id": name, "_score": score} for name, score in fused]
    ranking = [{"index": 2, "relevance_score": 0.05}, {"index": 0, "relevance_score": 0.04}]
    ordered = reranked_hits(hits, ranking)
    assert [(h["_id"], h["_score"]) for h in ordered] == [("c", 0.05), ("a", 0.04), ("b", 0.8), ("d", 0.1)]
    assert hits[2]["_score"] == 0.7  # the fused hits are not changed
    # an index out of range or repeated is ignored: every hit appears once
    assert [h["_id"] for h in reranked_hits(hits, [{"index": 7, "relevance_score": 1}, *ranking * 2])] == [
        "c",
        "a",
        "b",
        "d",
    ]
