"""Clinical-understanding figures against hand-computed values."""

from __future__ import annotations

import pytest

from benchmarks.clinical_understanding.compute import (
    detection_counts,
    detection_verdict,
    gain_verdict,
    group_mean,
    intent_groups_below,
    named_record_verdict,
    no_group_below_verdict,
    overall_minimum,
    overall_verdict,
    question_groups,
    share,
)
from benchmarks.clinical_understanding.measure import answered_within
from control_plane.clinical.intent_quality import Counts
from control_plane.testsets.catalog import Query

QUERIES = (
    Query("q1", "eligibility for breast cancer trials", {"intents": ["eligibility"], "form": "topic"}),
    Query(
        "q2",
        "who can join and what went wrong",
        {"intents": ["eligibility", "adverse_events"], "form": "two_intent"},
    ),
    Query("q3", "breast cancer", {"intents": [], "form": "topic"}),
)


def test_groups_hold_each_question_under_every_intent_and_its_form() -> None:
    assert question_groups(QUERIES) == {
        "all": ["q1", "q2", "q3"],
        "intent:eligibility": ["q1", "q2"],
        "intent:adverse_events": ["q2"],
        "intent:two or more intents": ["q2"],
        "intent:none": ["q3"],
        "form:topic": ["q1", "q3"],
        "form:two_intent": ["q2"],
    }


def test_groups_below_boosts_off_are_listed_with_their_loss() -> None:
    off = {"q1": 0.5, "q2": 0.4, "q3": 0.6}
    on = {"q1": 0.9, "q2": 0.2, "q3": 0.6}
    groups = question_groups(QUERIES)
    assert group_mean(on, groups["intent:eligibility"]) == pytest.approx(0.55)
    below = intent_groups_below(off, on, groups)
    assert below == pytest.approx({"adverse_events": -0.2, "two or more intents": -0.2})
    assert not no_group_below_verdict("direct", "rrf", below).met
    assert no_group_below_verdict("direct", "rrf", {}).met


def test_detection_counts_pairs_overall_and_per_intent() -> None:
    counts = detection_counts(
        [["eligibility"], ["eligibility", "adverse_events"], []],
        [["eligibility"], ["eligibility"], ["results"]],
        ["eligibility", "adverse_events", "results"],
    )
    assert counts["all"] == Counts(tp=2, fp=1, fn=1)
    assert counts["adverse_events"] == Counts(tp=0, fp=0, fn=1)
    assert counts["results"] == Counts(tp=0, fp=1, fn=0)


def test_verdicts_compare_with_their_thresholds() -> None:
    assert gain_verdict("/v1/search", "rrf", 0.70, 0.75).met
    assert not gain_verdict("/v1/search", "rrf", 0.70, 0.7499).met
    assert overall_verdict("direct", "weighted", 0.85).met
    assert not overall_verdict("direct", "weighted", 0.8499).met
    assert overall_minimum("clinical-fresh/test") == 0.80 and overall_minimum("clinical/test") == 0.85
    assert overall_verdict("direct", "rrf", 0.80, overall_minimum("clinical-fresh/test")).met
    assert named_record_verdict("direct", "rrf", 0.95, 20).met
    assert not named_record_verdict("direct", "rrf", 18 / 19, 19).met  # 94.7 %
    assert share({"a": True, "b": False}, ["a", "b"]) == 0.5
    assert detection_verdict(Counts(tp=85, fp=9, fn=15)).met  # recall 0.85, precision 0.904
    assert not detection_verdict(Counts(tp=85, fp=10, fn=15)).met  # precision 0.895


def test_an_answer_within_the_top_3_is_a_grade_2_chunk_there() -> None:
    judged = {"a": 2, "b": 1}
    assert answered_within(judged, ["x", "y", "a"])
    assert not answered_within(judged, ["b", "x", "y", "a"])
