"""The clinical benchmark measures detection on any clinical collection: a form the labelled-sample
check does not name (clinical-natural's topic, clinical-fresh's implicit) counts as none."""

from __future__ import annotations

from benchmarks.clinical_relevance.measure import detection, sample_form
from control_plane.config.settings import load_settings
from control_plane.testsets.catalog import Query


def test_forms_outside_the_samples_count_as_none() -> None:
    assert sample_form(Query("q", "t", {"form": "paraphrase"})) == "paraphrase"
    assert sample_form(Query("q", "t", {"form": "implicit"})) == "none"
    assert sample_form(Query("q", "t", {})) == "none"


def test_detection_reads_a_fresh_collections_questions() -> None:
    queries = [
        Query("f1", "NCT02438137 exclusion criteria", {"intents": ["eligibility"], "form": "named_record"}),
        Query("f2", "conjunctivitis on dupilumab", {"intents": ["adverse_events"], "form": "implicit"}),
    ]
    report = detection(queries, load_settings())
    assert report.per_intent["eligibility"].tp == 1  # "exclusion criteria" is a cue
    assert set(report.per_form) <= {"none"}
