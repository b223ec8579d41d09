"""Clinical intents: the packaged YAML, detection and confidence, boost planning, boost filters."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from control_plane.clinical.intents import (
    DEFAULT_INTENTS_FILE,
    Boost,
    DetectedIntent,
    IntentConfig,
    IntentConfigError,
    UnknownIntentError,
    boost_filter,
    detect_intents,
    intents_from_override,
    load_intent_config,
    parse_intent_config,
    plan_boosts,
)
from control_plane.clinical.section_routing import Candidate, route_factor


def _by_name(intents: list[DetectedIntent]) -> dict[str, DetectedIntent]:
    return {intent.name: intent for intent in intents}


def test_packaged_file_holds_the_spec_factors(config: IntentConfig) -> None:
    factors = {name: rule.boost for name, rule in config.intents.items()}
    assert factors == {
        "eligibility": 3.0,
        "adverse_events": 2.0,
        "dosage": 1.5,
        "results": 2.0,
        "methods": 1.5,
        "indications": 1.5,
        "tabular": 1.0,
    }
    assert config.intents["results"].targets == ("results", "outcome", "endpoint")
    assert config.intents["eligibility"].restrict_to_sources == ()


def test_a_phrase_counts_0_9_and_its_inner_cue_words_are_not_counted_again(config: IntentConfig) -> None:
    (detected,) = detect_intents("What are the Inclusion Criteria?", config)
    assert (detected.name, detected.matched) == ("eligibility", ("Inclusion Criteria",))
    assert detected.confidence == pytest.approx(0.9)


def test_one_cue_word_is_0_6_and_two_raise_it_to_0_84(config: IntentConfig) -> None:
    one = _by_name(detect_intents("warfarin toxicity in elderly patients on long-term treatment", config))
    two = _by_name(detect_intents("warfarin toxicity and safety in elderly patients on treatment", config))
    assert one["adverse_events"].confidence == pytest.approx(0.6)
    assert two["adverse_events"].confidence == pytest.approx(1 - 0.4 * 0.4)
    assert two["adverse_events"].matched == ("toxicity", "safety")


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("methods of NCT03418623", "methods"),
        ("dose NCT01029262", "dosage"),
        ("GRECCAR 2 trial results", "results"),  # "GRECCAR 2" is the record's name, not a word
        ("IN-REC-SUR-E trial methods", "methods"),
        ("warfarin toxicity", "adverse_events"),
    ],
)
def test_in_a_terse_question_a_cue_word_weighs_as_a_phrase(
    config: IntentConfig, question: str, intent: str
) -> None:
    assert config.terse_words == 3
    assert _by_name(detect_intents(question, config))[intent].confidence == pytest.approx(0.9)


def test_a_question_of_more_words_than_terse_words_keeps_its_cue_at_0_6(config: IntentConfig) -> None:
    four = _by_name(detect_intents("what were the methods of NCT03418623", config))
    assert four["methods"].confidence == pytest.approx(0.6)
    off = config.model_copy(update={"terse_words": 0})
    assert _by_name(detect_intents("dose NCT01029262", off))["dosage"].confidence == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("question", "harm"),
    [
        ("upper respiratory infections and nasopharyngitis certolizumab versus placebo", "nasopharyngitis"),
        ("number of patients with hypotension or nausea with spinal epidural versus general", "nausea"),
        ("bowel perforation and NEC in tiny preemies given fluconazole vs placebo", "perforation"),
    ],
)
def test_a_harm_the_corpus_lists_is_an_adverse_events_cue(
    config: IntentConfig, question: str, harm: str
) -> None:
    assert config.corpus_cues == "corpus_cues.json"
    detected = _by_name(detect_intents(question, config))["adverse_events"]
    assert (detected.matched, detected.confidence) == ((harm,), pytest.approx(0.6))


def test_serious_alone_is_not_a_harm_and_summary_rows_give_no_cue(config: IntentConfig) -> None:
    # "Total, serious adverse events" is a summary row of the event tables, not a harm's name
    assert "serious" not in config.cue_keys("adverse_events")
    assert detect_intents("serious mental illness in young adults", config) == []


@pytest.mark.parametrize(
    "question",
    [
        "are smokers excluded from the asthma biologic trials",  # asthma: MEDLINE's subject, not a harm
        "headache and aphasia after starting blinatumomab",  # headache names a record's topic
        "efficacy of lenalidomide in lower risk MDS",
    ],
)
def test_a_subject_is_not_a_harm(config: IntentConfig, question: str) -> None:
    detected = _by_name(detect_intents(question, config)).get("adverse_events")
    assert detected is None or "headache" not in detected.matched


def test_corpus_cues_are_cue_words_terse_ignored_and_off_without_the_file(config: IntentConfig) -> None:
    cued = config.with_cue_keys({"adverse_events": frozenset({"rash"})})
    assert _by_name(detect_intents("rash with drug X in the trial", cued))["adverse_events"].confidence == 0.6
    assert _by_name(detect_intents("rash drug X", cued))["adverse_events"].confidence == pytest.approx(0.9)
    # a corpus cue inside an ignore_within phrase means something else, like any cue
    safety = config.with_cue_keys({"adverse_events": frozenset({"cultur"})})
    assert "adverse_events" not in _by_name(detect_intents("safety culture in wards", safety))
    bare = config.with_cue_keys({})
    assert detect_intents("rash with drug X in the trial", bare) == []
    with pytest.raises(IntentConfigError, match="unknown intents"):
        config.with_cue_keys({"harms": frozenset({"rash"})})


def test_an_intents_file_naming_a_missing_cues_file_says_how_to_build_it(tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_INTENTS_FILE.read_text(encoding="utf-8"))
    data["corpus_cues"] = "absent.json"
    path = tmp_path / "intents.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(IntentConfigError, match=r"corpus_cues.*biohybrid intents cues"):
        load_intent_config(path)


@pytest.mark.parametrize(
    "question",
    [
        "who can get the study drug outside a clinical trial",
        "who could receive nivolumab through the access programme",
        "requirements to receive the vaccine in the trial",
        "do patients have to be treatment naive to be randomised",
        "what platelet count keeps patients out of the study",
        "which patients were included in the registry",
        "can breastfeeding mothers receive IV ganaxolone",
        "could patients on dialysis receive the vaccine",
    ],
)
def test_who_may_receive_join_or_be_randomised_is_eligibility(config: IntentConfig, question: str) -> None:
    detected = _by_name(detect_intents(question, config))
    assert detected["eligibility"].confidence == pytest.approx(0.9)
    assert "methods" not in detected  # being randomised as a condition of entry is not the design


@pytest.mark.parametrize(
    ("question", "intent", "confidence"),
    [
        ("does the new drug clear the infection faster", "results", 0.9),
        ("did surgery shorten the hospital stay", "results", 0.9),
        ("how many patients responded to the vaccine", "results", 0.6),
        ("did cryotherapy clear the warts", "results", 0.9),
        ("rituximab infusion-related reactions", "adverse_events", 0.9),
        ("serious events with the study drug", "adverse_events", 0.9),
    ],
)
def test_effects_and_infusion_reactions_named_in_other_words(
    config: IntentConfig, question: str, intent: str, confidence: float
) -> None:
    assert _by_name(detect_intents(question, config))[intent].confidence == pytest.approx(confidence)


@pytest.mark.parametrize(
    "question",
    [
        "did more patients become transfusion free with lenalidomide than with placebo",
        "does a recruitment manoeuvre before surfactant cut the need for ventilation",
        "Do children sit better wearing the orthosis",
    ],
)
def test_a_yes_no_question_without_a_phrase_asks_for_results(config: IntentConfig, question: str) -> None:
    detected = detect_intents(question, config)
    assert [(d.name, d.confidence) for d in detected] == [("results", pytest.approx(0.6))]
    first = question.split()[0]
    assert detected[0].matched == (first,) and detected[0].cue_spans == ((0, len(first)),)


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("does finasteride cause depression", "adverse_events"),  # its own phrase comes first
        ("do patients have to be treatment naive to be randomised", "eligibility"),
        ("was the trial blinded", "methods"),
    ],
)
def test_a_yes_no_question_with_a_phrase_asks_for_what_the_phrase_says(
    config: IntentConfig, question: str, intent: str
) -> None:
    assert [d.name for d in detect_intents(question, config)] == [intent]


def test_only_the_opening_word_makes_a_yes_no_question(config: IntentConfig) -> None:
    assert detect_intents("what did more patients become with lenalidomide", config) == []
    assert detect_intents("lenalidomide: did it", config) == []
    rule = {"phrases": ["dose"], "targets": ["dosage"], "question_openings": ["did"]}
    custom = parse_intent_config({"intents": {"dosage": rule}})
    assert [d.name for d in detect_intents("  did they adjust it", custom)] == ["dosage"]
    assert (
        detect_intents(
            "did they adjust it",
            parse_intent_config({"intents": {"dosage": {**rule, "question_openings": []}}}),
        )
        == []
    )


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # why and when a treatment is chosen
        ("why use rituximab in lupus nephritis", "indications"),
        ("why would a neurologist give steroids after a stroke", "indications"),
        ("when would a cardiologist reach for amiodarone", "indications"),
        ("which tumours is the study drug supplied for under expanded access", "indications"),
        # how something was measured, assessed or searched
        ("how did the asthma trials measure adherence to inhalers", "methods"),
        ("how was pain assessed after knee replacement", "methods"),
        ("search strategy of the meta-analysis on statins", "methods"),
        ("which databases searched in the Cochrane review of probiotics", "methods"),
        # a laboratory harm, problems on a treatment, a device's harm
        ("low platelets on ibrutinib compared with chlorambucil", "adverse_events"),
        ("kidney problems on tenofovir", "adverse_events"),
        ("elevated liver enzymes with the statin", "adverse_events"),
        ("breathing problems during the infusion", "adverse_events"),
        ("ICD lead dislodgement after implantation", "adverse_events"),
    ],
)
def test_a_phrase_family_names_its_intent_in_other_words(
    config: IntentConfig, question: str, intent: str
) -> None:
    assert intent in _by_name(detect_intents(question, config))


def test_how_patients_were_randomised_stays_methods(config: IntentConfig) -> None:
    assert set(_by_name(detect_intents("how were patients randomised in the trial", config))) == {"methods"}


def test_phrase_plus_cue_is_0_96(config: IntentConfig) -> None:
    detected = _by_name(detect_intents("adverse events and toxicity", config))
    assert detected["adverse_events"].confidence == pytest.approx(1 - 0.1 * 0.4)


def test_inflections_and_hyphens_match(config: IntentConfig) -> None:
    detected = _by_name(detect_intents("Side-Effects, dosing and outcomes", config))
    assert detected["adverse_events"].matched == ("Side-Effects",)
    assert detected["dosage"].matched == ("dosing",)
    assert detected["results"].matched == ("outcomes",)


def test_whole_words_only(config: IntentConfig) -> None:
    # "rate" is a tabular cue; it must not fire inside "moderated".
    assert detect_intents("moderated dialogue about metformin", config) == []


def test_a_cue_inside_an_ignore_within_phrase_does_not_count(config: IntentConfig) -> None:
    # "rate" in "heart rate", "safety" in "safety culture", "how many" in "how many milligrams" (dosage).
    assert detect_intents("heart rate variability in athletes", config) == []
    assert detect_intents("safety culture in operating rooms", config) == []
    detected = _by_name(detect_intents("how many milligrams of sertraline", config))
    assert set(detected) == {"dosage"}
    # The same cue outside the phrase still counts.
    assert "adverse_events" in _by_name(detect_intents("safety of sertraline", config))
    data = yaml.safe_load(DEFAULT_INTENTS_FILE.read_text(encoding="utf-8"))
    data["intents"]["adverse_events"]["ignore_within"] = ["safety of"]
    assert "adverse_events" not in _by_name(detect_intents("safety of sertraline", parse_intent_config(data)))


def test_rats_are_not_a_rate(config: IntentConfig) -> None:
    # light_stem("rats") == light_stem("rate"): the tabular intent names its rates instead.
    assert detect_intents("rats fed a high fat diet", config) == []
    assert "tabular" in _by_name(detect_intents("relapse rate after stopping", config))


def test_paraphrases_are_caught(config: IntentConfig) -> None:
    examples = {
        "who is allowed to take part in the study": "eligibility",
        "what went wrong for patients on the new drug": "adverse_events",
        "how often should insulin be injected": "dosage",
        "did it work for chronic pain": "results",
        "how was the study set up": "methods",
        "what is hydroxychloroquine prescribed for": "indications",
        "how common is delirium in the ICU": "tabular",
    }
    for query, intent in examples.items():
        assert [i.name for i in detect_intents(query, config)] == [intent], query


def test_several_intents_most_confident_first(config: IntentConfig) -> None:
    detected = detect_intents("How many patients had adverse events? eligibility", config)
    assert [(i.name, round(i.confidence, 2)) for i in detected] == [
        ("adverse_events", 0.9),
        ("tabular", 0.9),
        ("eligibility", 0.6),
    ]


def test_no_cue_no_intent(config: IntentConfig) -> None:
    assert detect_intents("vitamin D and breast cancer", config) == []


def test_override_gives_confidence_1_and_refuses_unknown_names(config: IntentConfig) -> None:
    assert intents_from_override(["tabular", "eligibility", "tabular"], config) == [
        DetectedIntent("tabular", 1.0),
        DetectedIntent("eligibility", 1.0),
    ]
    with pytest.raises(UnknownIntentError, match=r"\['safety'\].*adverse_events"):
        intents_from_override(["safety"], config)


def test_intent_boost_is_factor_times_confidence(config: IntentConfig) -> None:
    boosts = plan_boosts([DetectedIntent("eligibility", 0.9)], config)
    assert [(b.field, b.values, round(b.factor, 6), b.intent) for b in boosts] == [
        ("intent_hint", ("eligibility",), 2.7, "eligibility")
    ]


def test_a_boost_never_demotes(config: IntentConfig) -> None:
    # methods 1.5 x 0.6 = 0.9 < 1: no boost at all (never a factor below 1).
    assert plan_boosts([DetectedIntent("methods", 0.6)], config) == []
    assert plan_boosts([DetectedIntent("methods", 0.9)], config)[0].factor == pytest.approx(1.35)


def test_tabular_routes_to_tables_with_1_plus_2c(config: IntentConfig) -> None:
    boosts = plan_boosts([DetectedIntent("tabular", 0.6)], config)
    assert [(b.field, b.values, round(b.factor, 6)) for b in boosts] == [("is_table", (True,), 2.2)]


def test_adverse_events_route_tables_and_ae_chunks_the_larger_factor_wins(config: IntentConfig) -> None:
    # intent boost 2.0 x 0.6 = 1.2 vs routing 1 + 2 x 0.6 = 2.2 for ae chunks: 2.2; ae tables 2.2.
    boosts = plan_boosts([DetectedIntent("adverse_events", 0.6)], config)
    assert [(b.field, b.values, round(b.factor, 6), b.tables_only) for b in boosts] == [
        ("intent_hint", ("ae",), 2.2, False),
        ("intent_hint", ("ae",), 2.2, True),
    ]


def test_an_adverse_event_question_lifts_adverse_event_tables_not_outcome_tables(
    config: IntentConfig,
) -> None:
    boosts = plan_boosts(detect_intents("side effects of the treatment", config), config)
    ae_table = Candidate("t1", "d", 1.0, "ae", True)
    outcome_table = Candidate("t2", "d", 1.0, "outcome", True)
    assert route_factor(ae_table, boosts) > 1.0
    assert route_factor(outcome_table, boosts) == 1.0


def test_a_results_question_lifts_outcome_tables_not_adverse_event_tables(config: IntentConfig) -> None:
    boosts = plan_boosts(detect_intents("what were the results, as a table", config), config)
    assert route_factor(Candidate("t1", "d", 1.0, "outcome", True), boosts) > 1.0
    assert route_factor(Candidate("t2", "d", 1.0, "ae", True), boosts) == 1.0


def test_tabular_with_another_intent_lifts_that_intent_s_tables(config: IntentConfig) -> None:
    boosts = plan_boosts([DetectedIntent("tabular", 0.9), DetectedIntent("adverse_events", 0.6)], config)
    tables = [(b.values, round(b.factor, 6), b.intent) for b in boosts if b.tables_only]
    # the strongest routing for ae tables: tabular's 1 + 2 x 0.9 = 2.8 over adverse events' 2.2
    assert tables == [(("ae",), 2.8, "tabular")]
    assert not [b for b in boosts if b.field == "is_table"]  # no table of another kind is lifted


def test_tabular_alone_lifts_every_table(config: IntentConfig) -> None:
    boosts = plan_boosts([DetectedIntent("tabular", 0.9)], config)
    assert route_factor(Candidate("t", "d", 1.0, None, True), boosts) == pytest.approx(2.8)
    assert route_factor(Candidate("c", "d", 1.0, "ae", False), boosts) == 1.0


def test_manual_tabular_gives_3(config: IntentConfig) -> None:
    boosts = plan_boosts([], config, manual_tabular=True)
    assert [(b.field, b.values, b.factor, b.intent) for b in boosts] == [
        ("is_table", (True,), 3.0, "tabular")
    ]


def test_no_intent_no_boost(config: IntentConfig) -> None:
    assert plan_boosts([], config) == []


def test_plan_refuses_an_intent_the_config_lacks(config: IntentConfig) -> None:
    with pytest.raises(UnknownIntentError, match="nausea"):
        plan_boosts([DetectedIntent("nausea", 0.9)], config)


def test_boost_filter_is_a_term_for_one_value_and_terms_for_several() -> None:
    assert boost_filter(Boost("is_table", (True,), 2.2, "r", "tabular")) == {"term": {"is_table": True}}
    several = Boost("intent_hint", ("results", "outcome"), 1.5, "r", "results")
    assert boost_filter(several) == {"terms": {"intent_hint": ["results", "outcome"]}}


def test_a_table_boost_of_some_kinds_filters_tables_of_those_kinds() -> None:
    boost = Boost("intent_hint", ("ae",), 2.2, "r", "adverse_events", tables_only=True)
    assert boost_filter(boost) == {
        "bool": {"filter": [{"term": {"intent_hint": "ae"}}, {"term": {"is_table": True}}]}
    }


def test_bad_file_names_the_key(tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_INTENTS_FILE.read_text(encoding="utf-8"))
    data["intents"]["eligibility"]["boost"] = 0.5
    data["intents"]["dosage"]["targets"] = ["dose"]
    with pytest.raises(IntentConfigError) as caught:
        parse_intent_config(data)
    assert "intents.eligibility.boost" in str(caught.value)
    assert "intents.dosage.targets.0" in str(caught.value)


def test_unknown_key_and_missing_file_are_reported(tmp_path: Path) -> None:
    with pytest.raises(IntentConfigError, match=r"intents\.methods\.phrase\b"):
        parse_intent_config({"intents": {"methods": {"phrase": ["design"]}}})
    with pytest.raises(IntentConfigError, match="not found"):
        load_intent_config(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("intents: [unclosed", encoding="utf-8")
    with pytest.raises(IntentConfigError, match="not valid YAML"):
        load_intent_config(bad)


# -- phrases with gaps: the topic sits inside the question ----------------------------------------


def _one_rule(phrases: list[str], ignore_within: list[str] | None = None, gap: int = 2) -> IntentConfig:
    rule = {"phrases": phrases, "ignore_within": ignore_within or [], "targets": ["results"]}
    return parse_intent_config({"max_gap_words": gap, "intents": {"results": rule}})


def test_a_gap_stands_for_up_to_max_gap_words() -> None:
    config = _one_rule(["does ... help"], gap=2)
    found = _by_name(detect_intents("does low dose help", config))
    assert found["results"].matched == ("does low dose help",)


def test_a_gap_longer_than_allowed_does_not_match() -> None:
    config = _one_rule(["does ... help"], gap=1)
    assert detect_intents("does low dose aspirin help", config) == []
    assert detect_intents("does aspirin help", config) != []


def test_a_gapped_phrase_needs_its_parts_in_order() -> None:
    config = _one_rule(["does ... help"])
    assert detect_intents("help does", config) == []
    assert detect_intents("does it", config) == []


def test_a_gapped_phrase_weighs_as_a_phrase() -> None:
    config = _one_rule(["does ... help"])
    assert _by_name(detect_intents("does aspirin help", config))["results"].confidence == pytest.approx(0.9)


def test_a_gapped_ignore_within_drops_the_cue_inside_it() -> None:
    config = _one_rule(["how often"], ignore_within=["how often ... get"])
    assert detect_intents("how often did patients get the shots", config) == []
    assert detect_intents("how often does it happen", config) != []


def test_a_gap_with_an_empty_side_is_refused() -> None:
    with pytest.raises(IntentConfigError, match="empty side"):
        _one_rule(["... help"])


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("eligibility for breast cancer trials", "eligibility"),
        ("side effects of the treatment", "adverse_events"),
        ("how is the study drug given to children", "dosage"),
        ("does mepolizumab help people with eosinophilic granulomatosis", "results"),
        ("what is angiotensin II LJPC-501 given for", "indications"),
        ("did the remedy for infant colic cause any problems", "adverse_events"),
        ("how were patients assigned in the lenalidomide trial", "methods"),
        ("sitting balance scores in children wearing an orthosis", "tabular"),
    ],
)
def test_the_packaged_rules_read_questions_with_the_topic_inside(
    config: IntentConfig, query: str, intent: str
) -> None:
    assert intent in _by_name(detect_intents(query, config))


def test_how_often_a_dose_was_given_is_dosage_not_a_count(config: IntentConfig) -> None:
    found = _by_name(detect_intents("how often did participants get the dupilumab shots", config))
    assert "dosage" in found
    assert "tabular" not in found
    worn = _by_name(detect_intents("how many hours a day was the knee brace worn", config))
    assert "dosage" in worn and "tabular" not in worn


def test_recruiting_a_lung_is_not_recruiting_patients(config: IntentConfig) -> None:
    found = _by_name(detect_intents("study design of lung recruitment before surfactant", config))
    assert "eligibility" not in found
