from control_plane.cli.query import hit_line


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
