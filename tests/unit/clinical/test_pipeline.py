"""The clinical pipelines' models, pure: the client's query forms, the rewrite, and routed scores
computed by hand."""

from __future__ import annotations

import pytest

from control_plane.clinical.intents import load_intent_config
from control_plane.clinical.pipeline import (
    PipelineQueryError,
    client_query,
    filters_sources,
    question_text,
    rewrite,
    route,
)
from control_plane.config.settings import FacetSettings, SectionRoutingSettings

CONFIG = load_intent_config()
FACETS = FacetSettings()
PARAMS = SectionRoutingSettings(weight=4.0, min_topicality=0.8, max_documents=3, depth=50)


def test_the_short_and_long_match_and_a_bool_with_filters_are_read() -> None:
    assert client_query({"match": {"text": "side effects"}}).text == "side effects"
    assert (
        client_query({"match": {"text": {"query": "side effects", "operator": "OR"}}}).text == "side effects"
    )
    read = client_query(
        {"bool": {"must": {"match": {"text": "dose"}}, "filter": [{"term": {"source": "pmc"}}]}}
    )
    assert read.text == "dose" and read.filters == ({"term": {"source": "pmc"}},)
    assert filters_sources(read.filters) and not filters_sources(({"term": {"doc_id": "x"}},))


@pytest.mark.parametrize(
    "query",
    [
        {"term": {"source": "pmc"}},
        {"match": {"title_path": "dose"}},
        {"bool": {"must": [{"match": {"text": "a"}}], "should": [{"match": {"text": "b"}}]}},
        {"bool": {"must": [{"match": {"text": "a"}}, {"match": {"text": "b"}}]}},
    ],
)
def test_other_forms_are_refused_with_the_form_to_send(query: dict[str, object]) -> None:
    with pytest.raises(PipelineQueryError, match="match"):
        client_query(query)


def test_the_rewrite_is_the_product_hybrid_with_the_clients_filters_on_every_sub_query() -> None:
    done = rewrite(
        {"bool": {"must": [{"match": {"text": "side effects"}}], "filter": [{"term": {"source": "pmc"}}]}},
        CONFIG,
        FACETS,
        depth=100,
        ef_search=200,
    )
    hybrid = done.query["hybrid"]
    assert hybrid["pagination_depth"] == 100
    assert hybrid["queries"][0]["multi_match"]["_name"] == "bm25"
    assert hybrid["queries"][1]["neural_sparse"]["sparse_terms"]["_name"] == "splade"
    assert hybrid["queries"][2]["bool"]["_name"] == "dense"
    neural = hybrid["queries"][2]["bool"]["must"][0]["neural"]["embedding"]
    assert neural["k"] == 100 and neural["method_parameters"] == {"ef_search": 200}
    assert neural["filter"] == hybrid["filter"] == {"bool": {"filter": [{"term": {"source": "pmc"}}]}}
    assert [i.name for i in done.plan.intents] == ["adverse_events"]
    assert question_text(done.query) == "side effects"


def _hit(
    chunk: str, doc: str, score: float, hint: str | None = None, table: bool = False
) -> dict[str, object]:
    return {"chunk_id": chunk, "doc_id": doc, "previous_score": score, "intent_hint": hint, "is_table": table}


def test_routed_scores_by_hand() -> None:
    # "side effects": adverse_events at 0.9 -> intent_hint ae x boost; A is the only topical record.
    hits = [_hit("B:0", "B", 0.4, "ae"), _hit("A:0", "A", 0.8), _hit("A:1", "A", 0.2, "ae")]
    routed = route(hits, {"match": {"text": "side effects"}}, CONFIG, FACETS, PARAMS)
    boost = CONFIG.intents["adverse_events"].boost * 0.9
    table = 1 + CONFIG.table_routing.per_confidence * 0.9
    factor = (
        max(boost, table) if CONFIG.intents["adverse_events"].table_routing == "tables_and_targets" else boost
    )
    assert routed.scores[1] == pytest.approx(1.0)
    assert routed.scores[0] == pytest.approx(0.5)  # B is not topical (0.5 < 0.8): not lifted
    assert routed.scores[2] == pytest.approx(0.25 + 4.0 * (factor - 1.0))
    assert "lifted x" in routed.notes[2] and "not lifted" in routed.notes[0]


def test_a_question_without_intent_keeps_the_fused_scores() -> None:
    hits = [_hit("A:0", "A", 0.3), _hit("A:1", "A", 0.7, "eligibility")]
    routed = route(hits, {"match": {"text": "mepolizumab"}}, CONFIG, FACETS, PARAMS)
    assert routed.scores == (0.3, 0.7)


def test_a_hit_without_its_fused_score_is_refused_by_name() -> None:
    with pytest.raises(PipelineQueryError, match="previous_score"):
        route([{"doc_id": "A"}], {"match": {"text": "dose"}}, CONFIG, FACETS, PARAMS)
