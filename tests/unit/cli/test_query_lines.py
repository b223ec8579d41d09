from control_plane.cli.query import hit_line, rerank_line
from control_plane.inference.fallback_counts import counted_since


def test_a_hit_line_shows_the_lift_routing_gave_it_wherever_the_form_writes_the_note() -> None:
    routed = {"doc_id": "NCT1", "intent_hint": "eligibility", "text": "Adults  aged 18\\nor over"}
    metadata_form = {
        "_score": 2.5,
        "_source": {**routed, "metadata": {"clinical_route": "intents=eligibility; lifted x1.80"}},
    }
    assert (
        hit_line(1, metadata_form) == "  1. 2.5000  NCT1  [eligibility] lifted x1.80 Adults aged 18\\nor over"
    )
    haystack = {"doc_id": "NCT1", "content": "Adults", "clinical_route": "intents=eligibility; not lifted"}
    assert hit_line(2, {"_score": 0.5, "_source": haystack}) == "  2. 0.5000  NCT1  [-] Adults"
    unrouted = {
        "_score": 0.1,
        "_source": {"doc_id": "P", "text": "x", "metadata": {"clinical_route": "not routed: y"}},
    }
    assert hit_line(3, unrouted) == "  3. 0.1000  P  [-] x"


def test_a_rerank_line_says_whether_the_service_counted_a_fallback_during_the_search() -> None:
    assert rerank_line({"timeout": 3.0}, {"timeout": 3.0}) == (
        "  rerank: no fallback counted by the inference service during this search"
    )
    line = rerank_line({"timeout": 3.0}, {"timeout": 3.0, "gpu_unavailable": 1.0})
    assert line.startswith("  rerank: not applied, the fused order (gpu_unavailable, counted")
    assert "set it false and run `biohybrid models register`" in line
    assert rerank_line({}, {"timeout": 2.0}) == (
        "  rerank: not applied, the fused order (timeout, counted by the inference service)"
    )
    assert rerank_line(None, {}).startswith("  rerank: unknown")


def test_fallbacks_counted_between_two_readings_leave_out_the_reasons_that_did_not_move() -> None:
    assert counted_since({"timeout": 1.0, "overloaded": 2.0}, {"timeout": 3.0, "overloaded": 2.0}) == {
        "timeout": 2
    }
    assert counted_since({}, {"unavailable": 1.0}) == {"unavailable": 1}
