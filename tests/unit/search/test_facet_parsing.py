import json
from pathlib import Path
from typing import Any

import pytest

from control_plane.ingestion.parsers.ctgov_document import trial_document
from control_plane.ingestion.parsers.ctgov_record import (
    AdverseEvent,
    AdverseEvents,
    Arm,
    OutcomeResult,
    PlannedOutcome,
    ResultRow,
    TrialRecord,
)
from control_plane.search.facet_types import (
    AdverseEventsFacet,
    DesignFacet,
    EligibilityFacet,
    EventCount,
    OtherFacet,
    OutcomeMeasuresFacet,
    OutcomeResultsFacet,
)
from control_plane.search.facets import facet_kind, parse_facets
from control_plane.search.results import chunk_result


def _json(facts: dict[str, Any]) -> str:
    return json.dumps(facts, sort_keys=True)


def test_adverse_event_counts_are_parsed_to_integers() -> None:
    stored = {
        "seriousness": "serious",
        "groups": {"EG000": "Arm A", "EG001": "Arm B"},
        "events": [
            {
                "organ_system": "Blood and lymphatic system disorders",
                "term": "Anaemia",
                "counts": {
                    "EG000": {"affected": "2", "at_risk": "8"},
                    "EG001": {"affected": "", "at_risk": "53"},
                },
            }
        ],
    }
    parsed = parse_facets(_json(stored), "adverse_events")
    assert parsed.error is None
    facets = parsed.facets
    assert isinstance(facets, AdverseEventsFacet)
    assert facets.seriousness == "serious" and facets.groups == {"EG000": "Arm A", "EG001": "Arm B"}
    (event,) = facets.events
    assert (event.organ_system, event.term) == ("Blood and lymphatic system disorders", "Anaemia")
    assert event.counts == {"EG000": EventCount(affected=2, at_risk=8), "EG001": EventCount(at_risk=53)}


def test_outcome_measures_and_results_are_told_apart_by_their_keys() -> None:
    planned = parse_facets(
        _json(
            {
                "outcome_measures": [
                    {"category": "primary", "measure": "Overall survival", "time_frame": "2 y"}
                ]
            }
        )
    ).facets
    assert isinstance(planned, OutcomeMeasuresFacet)
    assert planned.outcome_measures[0].measure == "Overall survival"
    assert planned.outcome_measures[0].description is None
    reported = parse_facets(
        _json(
            {
                "outcome_type": "Primary",
                "title": "Response rate",
                "units": "participants",
                "groups": {"OG000": "Arm A"},
                "rows": [{"label": "", "values": {"OG000": "12"}}],
            }
        )
    ).facets
    assert isinstance(reported, OutcomeResultsFacet)
    assert (reported.title, reported.rows[0].values) == ("Response rate", {"OG000": "12"})


def test_eligibility_facts_and_design_keep_keys_they_do_not_name() -> None:
    eligibility = parse_facets(_json({"sex": "All", "minimum_age": "18 Years", "gender_based": "No"})).facets
    assert isinstance(eligibility, EligibilityFacet)
    assert (eligibility.sex, eligibility.minimum_age, eligibility.maximum_age) == ("All", "18 Years", None)
    dumped = eligibility.model_dump()
    assert dumped["gender_based"] == "No" and dumped["kind"] == "eligibility"
    design = parse_facets(
        _json({"allocation": "Randomized", "masking": "None (Open Label)"}), "design"
    ).facets
    assert isinstance(design, DesignFacet)
    assert design.model_dump() == {
        "kind": "design",
        "study_type": None,
        "phases": [],
        "enrollment": None,
        "allocation": "Randomized",
        "masking": "None (Open Label)",
    }


def test_kind_comes_from_the_keys_first_then_the_section() -> None:
    assert facet_kind({"events": []}, "design") == "adverse_events"
    assert facet_kind({"groups": {"E1": "All"}}, "adverse_events") == "adverse_events"
    assert facet_kind({"sex": "All"}, "exclusion") == "eligibility"
    assert facet_kind({"anything": 1}, "inclusion") == "eligibility"
    assert facet_kind({"anything": 1}, "methods") == "other"
    assert facet_kind({"anything": 1}, None) == "other"


def test_facts_of_an_unknown_kind_come_back_whole() -> None:
    facets = parse_facets(_json({"p_value": "0.03", "nested": {"a": [1, 2]}}), "results").facets
    assert isinstance(facets, OtherFacet)
    assert facets.model_dump() == {"kind": "other", "p_value": "0.03", "nested": {"a": [1, 2]}}
    clash = parse_facets(_json({"kind": "custom", "x": 1})).facets
    assert clash is not None and clash.model_dump() == {"kind": "other", "stored_kind": "custom", "x": 1}


@pytest.mark.parametrize(
    ("stored", "words"),
    [
        ('{"events": [', "not valid JSON"),
        ("[1, 2]", "must be a JSON object, got list"),
        ('"text"', "must be a JSON object, got str"),
        (
            _json({"events": [{"counts": {"EG000": {"affected": "two", "at_risk": "8"}}}]}),
            "events.0.counts.EG000.affected",
        ),
        (_json({"outcome_measures": "Overall survival"}), "outcome_measures facts: outcome_measures"),
    ],
)
def test_malformed_facts_give_an_error_not_an_exception(stored: str, words: str) -> None:
    parsed = parse_facets(stored, "adverse_events")
    assert parsed.facets is None
    assert parsed.error is not None and words in parsed.error


def test_no_stored_facts_is_neither_facets_nor_error() -> None:
    assert parse_facets(None).facets is None and parse_facets(None).error is None
    assert parse_facets("  ").error is None


def test_chunk_result_parses_facets_only_when_asked() -> None:
    hit = {
        "_id": "NCT1:chunk:3",
        "_score": 1.0,
        "_source": {"chunk_id": "NCT1:chunk:3", "doc_id": "NCT1", "text": "t", "section": "eligibility"},
    }
    hit["_source"]["facet_json"] = _json({"sex": "Female"})
    assert chunk_result(hit, False, ["bm25"]).facets is None
    faceted = chunk_result(hit, False, ["bm25"], facets=True)
    assert isinstance(faceted.facets, EligibilityFacet) and faceted.facets.sex == "Female"
    hit["_source"]["facet_json"] = "{broken"
    broken = chunk_result(hit, False, ["bm25"], facets=True)
    assert broken.facets is None and broken.facet_error is not None
    assert broken.model_dump(mode="json")["facet_error"].startswith("facet_json is not valid JSON")


def test_what_the_trial_layout_writes_parses_as_the_kind_of_its_section() -> None:
    """Round trip with the writer: every facet the ClinicalTrials.gov layout stores parses, as its kind."""
    trial = TrialRecord(
        nct_id="NCT00000001",
        brief_title="A trial",
        conditions=("Breast cancer",),
        study_type="Interventional",
        phases=("Phase 2",),
        design={"allocation": "Randomized"},
        enrollment="60",
        arms=(Arm("Arm A", "Experimental", "Drug X 10 mg orally daily", ("Drug X",)),),
        planned_outcomes=(PlannedOutcome("primary", "Response rate", "", "12 weeks"),),
        eligibility_criteria="Inclusion Criteria:\n- Age 18 or over\nExclusion Criteria:\n- Pregnancy",
        eligibility_facts={"sex": "Female", "minimum_age": "18 Years"},
        outcome_results=(
            OutcomeResult(
                "Primary",
                "Response rate",
                "",
                "12 weeks",
                "participants",
                "Count",
                (("OG000", "Arm A"),),
                (ResultRow("", (("OG000", "7"),)),),
            ),
        ),
        adverse_events=AdverseEvents(
            groups=(("EG000", "Arm A"),),
            serious=(AdverseEvent("Cardiac disorders", "Heart failure", (("EG000", "1", "30"),)),),
            other=(AdverseEvent("General disorders", "Fatigue", (("EG000", "12", "30"),)),),
            frequency_threshold="5",
        ),
    )
    document = trial_document(trial, Path("NCT00000001.json"))
    kinds: dict[str, list[str]] = {}
    for part in [*document.sections, *document.tables]:
        if part.facet_json is None:
            continue
        parsed = parse_facets(part.facet_json, part.kind)
        assert parsed.error is None and parsed.facets is not None, (part.label, parsed.error)
        kinds.setdefault(part.label, []).append(parsed.facets.kind)
    assert kinds == {
        "Conditions": ["conditions"],
        "Study Design": ["design"],
        "Arms": ["arms"],
        "Eligibility": ["eligibility"],
        "Inclusion Criteria": ["eligibility"],
        "Exclusion Criteria": ["eligibility"],
        "Primary Outcome Measures": ["outcome_measures"],
        "Adverse Events": ["adverse_events"],
        "Outcome Result 1": ["outcome_results"],
        "Serious adverse events": ["adverse_events"],
        "Other adverse events": ["adverse_events"],
    }
    serious = next(t for t in document.tables if t.label == "Serious adverse events")
    facets = parse_facets(serious.facet_json, serious.kind).facets
    assert isinstance(facets, AdverseEventsFacet)
    assert facets.events[0].counts == {"EG000": EventCount(affected=1, at_risk=30)}
    arms = parse_facets(next(s for s in document.sections if s.label == "Arms").facet_json).facets
    assert arms is not None and arms.model_dump()["arms"][0]["doses"] == ["10 mg"]
