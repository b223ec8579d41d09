"""Clinical planning: the question's topic (what the dense and sparse encoders search with)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from control_plane.clinical.intents import (
    IntentConfig,
    ManyRecordsRule,
    detect_intents,
)
from control_plane.clinical.planning import plan_clinical, topic_text
from control_plane.config.search_settings import FacetSettings, SectionRoutingSettings


def _topic(query: str, config: IntentConfig) -> str | None:
    return topic_text(query, detect_intents(query, config))


@pytest.mark.parametrize(
    ("query", "topic"),
    [
        ("eligibility for breast cancer trials", "for breast cancer trials"),
        ("harms reported in immunotherapy trials", "reported in immunotherapy trials"),
        # a gapped cue leaves what its gap held: the treatment asked about
        ("does mepolizumab help people with EGPA", "mepolizumab people with EGPA"),
        ("how is the study drug given to children", "the study drug to children"),
    ],
)
def test_the_topic_is_the_question_without_its_cue_words(
    config: IntentConfig, query: str, topic: str
) -> None:
    assert _topic(query, config) == topic


@pytest.mark.parametrize(
    "query", ["side effects of the treatment", "eligibility criteria", "who can join the study"]
)
def test_a_question_with_no_specific_topic_has_none(config: IntentConfig, query: str) -> None:
    assert _topic(query, config) is None


def test_a_question_without_a_cue_has_no_separate_topic(config: IntentConfig) -> None:
    assert _topic("breast cancer", config) is None


def test_the_plan_searches_the_topic_only_with_boosts_on(config: IntentConfig) -> None:
    query = "eligibility for breast cancer trials"
    on = plan_clinical(query, config, FacetSettings())
    off = plan_clinical(query, config, FacetSettings(), boosts_on=False)
    assert on.semantic_text(query) == "for breast cancer trials"
    assert off.semantic_text(query) == query
    vague = "side effects of the treatment"
    assert plan_clinical(vague, config, FacetSettings()).semantic_text(vague) == vague


@pytest.mark.parametrize(
    "query",
    [
        "eligibility for breast cancer trials",
        "complications of hyaluronic acid filler injections across studies",
        "literature search strategy of systematic reviews and meta-analyses",
        "stem cell transplant Studies: who qualifies",
    ],
)
def test_a_question_naming_its_records_in_the_plural_routes_in_many(config: IntentConfig, query: str) -> None:
    rule = config.many_records
    assert rule is not None
    plan = plan_clinical(query, config, FacetSettings())
    assert plan.many_records == rule
    routing = plan.section_routing(SectionRoutingSettings(max_documents=3, min_topicality=0.8))
    assert (routing.max_documents, routing.min_topicality) == (rule.max_documents, rule.min_topicality)
    assert routing.topicality_outside_asked


@pytest.mark.parametrize(
    "query", ["who qualifies for the trial", "side effects of the treatment", "dose in the NCT01642004 study"]
)
def test_a_question_about_one_record_keeps_the_settings_few(config: IntentConfig, query: str) -> None:
    """The singular shares the plural's stem ("trial"), so the match is on the word as written."""
    params = SectionRoutingSettings(max_documents=3)
    assert plan_clinical(query, config, FacetSettings()).section_routing(params) is params


def test_many_records_widen_only_with_boosts_on_and_never_narrow(config: IntentConfig) -> None:
    off = plan_clinical("eligibility for breast cancer trials", config, FacetSettings(), boosts_on=False)
    assert off.many_records is None
    on = plan_clinical("eligibility for breast cancer trials", config, FacetSettings())
    wide = SectionRoutingSettings(max_documents=50, min_topicality=0.1)
    routing = on.section_routing(wide)  # the settings already route in more, less topical records: kept
    assert (routing.max_documents, routing.min_topicality) == (50, 0.1)
    assert routing.topicality_outside_asked


def test_many_records_take_their_fusions_topicality(config: IntentConfig) -> None:
    """A share of the top means more under min-max (scores squeezed towards it) than under RRF."""
    rule = config.many_records
    assert rule is not None and rule.min_topicality_by_fusion == {"weighted": 0.5}
    plan = plan_clinical("eligibility for breast cancer trials", config, FacetSettings())
    params = SectionRoutingSettings(max_documents=3, min_topicality=0.8)
    assert plan.section_routing(params, "weighted").min_topicality == 0.5
    assert plan.section_routing(params, "rrf").min_topicality == rule.min_topicality == 0.6
    assert plan.section_routing(params).min_topicality == 0.6  # no fusion named: the default
    with pytest.raises(ValidationError, match="within"):
        ManyRecordsRule.model_validate(
            {
                "plurals": ["trials"],
                "max_documents": 8,
                "min_topicality": 0.6,
                "min_topicality_by_fusion": {"weighted": 1.5},
            }
        )
