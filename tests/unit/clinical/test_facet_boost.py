from typing import Any

import pytest
from pydantic import ValidationError

from control_plane.clinical.facet_boost import bm25_field_boosts, facet_boost_factor, facets_only_filter
from control_plane.clinical.intents import Boost, DetectedIntent
from control_plane.config.search_settings import FacetSettings
from control_plane.config.settings import Settings
from control_plane.query.components import QueryEncodings, bm25_clause
from control_plane.search.intent_plan import plan_intents
from control_plane.search.request import build_request, filter_clauses
from control_plane.search.sections import section_query
from control_plane.search.spec import Filters, SearchSpec

AE = (DetectedIntent("adverse_events", 0.9, ("adverse events",)),)
PLAIN_FIELDS = ["text^1", "title_path^1.4", "facet_json^1.6", "table_lines^1.2", "identifiers^1", "topics^1"]
BOOSTED_FIELDS = [
    "text^1",
    "title_path^1.4",
    "facet_json^3.2",
    "table_lines^1.2",
    "identifiers^1",
    "topics^1",
]


def _clause(text: str, fields: list[str]) -> dict[str, Any]:
    return {"multi_match": {"query": text, "fields": fields, "type": "best_fields"}}


FACETS = FacetSettings(intent_boost=2.0, boost_granularities=("facet",))


def test_an_intent_raises_facet_json_in_the_bm25_clause() -> None:
    weights = bm25_field_boosts(AE, True, "facet", FACETS)
    assert bm25_clause("serious adverse events", weights) == _clause("serious adverse events", BOOSTED_FIELDS)


def test_no_intent_boosts_off_or_another_granularity_leaves_the_weights_alone() -> None:
    for weights in (
        bm25_field_boosts((), True, "facet", FACETS),
        bm25_field_boosts(AE, False, "facet", FACETS),
        bm25_field_boosts(AE, True, "chunk", FACETS),
        bm25_field_boosts(AE, True, "facet", FacetSettings(intent_boost=1.0)),
    ):
        assert bm25_clause("q", weights) == _clause("q", PLAIN_FIELDS)


def test_the_boost_multiplies_the_configured_weight_at_the_configured_granularities() -> None:
    everywhere = FacetSettings(intent_boost=1.5, boost_granularities=("chunk", "document", "facet"))
    base = {"text": 1.0, "facet_json": 2.0}
    for granularity in ("chunk", "document", "facet"):
        assert bm25_field_boosts(AE, True, granularity, everywhere, base) == {"text": 1.0, "facet_json": 3.0}
    with pytest.raises(ValidationError, match="intent_boost"):
        FacetSettings(intent_boost=0.5)  # a boost never demotes


def test_the_factor_reported_is_the_ratio_to_the_usual_weight() -> None:
    assert facet_boost_factor(bm25_field_boosts(AE, True, "facet", FacetSettings(intent_boost=2.5))) == 2.5
    assert facet_boost_factor(bm25_field_boosts((), True, "facet", FACETS)) is None
    assert facet_boost_factor({"text": 1.0}) is None


def test_plan_intents_raises_facet_json_only_for_a_clinical_facet_search_with_boosts() -> None:
    settings = Settings()
    factor = settings.search.facets.intent_boost
    assert settings.search.facets.boost_granularities == ("facet",) and factor > 1

    def facet_weight(**spec: Any) -> float:
        return plan_intents(SearchSpec.model_validate(spec), settings).bm25_fields["facet_json"]

    assert facet_weight(query="serious adverse events", granularity="facet") == pytest.approx(1.6 * factor)
    assert facet_weight(query="serious adverse events", granularity="facet", boosts=False) == 1.6
    assert facet_weight(query="serious adverse events") == 1.6  # chunk granularity: measured, left out
    assert facet_weight(query="bacterial genome sequencing", granularity="facet") == 1.6
    named = facet_weight(query="bacterial genome sequencing", granularity="facet", query_intent=["dosage"])
    assert named == pytest.approx(1.6 * factor)


def _request(spec: SearchSpec, **kwargs: Any) -> dict[str, Any]:
    return build_request(
        spec.model_copy(update={"candidate_depth": 100}),
        Settings(),
        tenant_id="t1",
        index="chunks-*",
        components=spec.components,
        weights={"bm25": 0.3, "splade": 0.35, "dense": 0.35},
        encodings=QueryEncodings(dense_vector=[0.1, 0.2], sparse_tokens={"ae": 1.0}),
        **kwargs,
    ).body


def test_build_request_sends_the_planned_bm25_weights() -> None:
    body = _request(SearchSpec(query="q"), bm25_fields=bm25_field_boosts(AE, True, "facet", FACETS))
    bm25 = body["query"]["hybrid"]["queries"][0]
    assert bm25 == {"multi_match": {**_clause("q", BOOSTED_FIELDS)["multi_match"], "_name": "bm25"}}
    default = _request(SearchSpec(query="q"))["query"]["hybrid"]["queries"][0]
    assert default["multi_match"]["fields"] == PLAIN_FIELDS


def test_facet_granularity_filters_every_sub_query_on_facet_json() -> None:
    exists = {"exists": {"field": "facet_json"}}
    assert facets_only_filter() == exists
    body = _request(SearchSpec(query="q", granularity="facet"))
    assert body["query"]["hybrid"]["filter"]["bool"]["filter"] == [{"term": {"tenant_id": "t1"}}, exists]
    knn = body["query"]["hybrid"]["queries"][2]["bool"]["must"][0]["knn"]["embedding"]
    assert knn["filter"]["bool"]["filter"][-1] == exists
    assert body["size"] == 10  # pages like chunk granularity, not the document window
    chunk = _request(SearchSpec(query="q"))
    assert exists not in chunk["query"]["hybrid"]["filter"]["bool"]["filter"]


def test_filters_keep_their_order_with_the_facet_filter_last() -> None:
    assert filter_clauses("t1", Filters(source=["ctgov"]), facets_only=True) == [
        {"term": {"tenant_id": "t1"}},
        {"terms": {"source": ["ctgov"]}},
        {"exists": {"field": "facet_json"}},
    ]


def test_routed_sections_of_a_facet_search_have_facts_too() -> None:
    boosts = [Boost("intent_hint", ("ae",), 1.8, "ae", "adverse_events")]
    body = section_query("t1", Filters(), ["NCT1"], boosts, facets_only=True)
    assert {"exists": {"field": "facet_json"}} in body["query"]["bool"]["filter"]
    plain = section_query("t1", Filters(), ["NCT1"], boosts)
    assert {"exists": {"field": "facet_json"}} not in plain["query"]["bool"]["filter"]
