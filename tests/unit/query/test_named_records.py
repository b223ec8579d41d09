"""Named records, pure: which phrases of a question may be a record's identifier, the clause that lifts
the record in each component, and when a named registry id is absent from the hits."""

from __future__ import annotations

import pytest

from control_plane.query.components import product_text_hybrid
from control_plane.query.named_records import (
    IDENTIFIER_FIELD,
    NAMED_RECORD_BOOST,
    absent_records,
    identifier_phrases,
    registry_ids,
    with_named_records,
    words_besides_identifiers,
)


@pytest.mark.parametrize(
    ("question", "phrases"),
    [
        ("NCT03133988 inclusion criteria", ("NCT03133988",)),
        ("nct03133988 dose", ("nct03133988",)),
        ("CheckMate 017 overall survival", ("CheckMate 017",)),
        ("REMEMBER A5274 serious adverse events", ("REMEMBER", "REMEMBER A5274", "A5274")),
        ("PMID 32043980", ("PMID", "PMID 32043980", "32043980")),
        ("doi:10.1038/sj.bjc.6605965.", ("10.1038/sj.bjc.6605965",)),
        ("(TMC114-C215) eligibility", ("TMC114-C215",)),
        ("GRECCAR 2 trial results", ("GRECCAR", "GRECCAR 2")),
    ],
)
def test_identifier_like_phrases_as_typed(question: str, phrases: tuple[str, ...]) -> None:
    assert identifier_phrases(question) == phrases


@pytest.mark.parametrize(
    "question",
    [
        "side effects of the treatment",
        "promise of immunotherapy",  # an acronym in lower case is a word
        "601 patients over 12 weeks",  # short numbers are counts, not ids
        "Did It Work",  # one capital per word is a title, not an acronym
    ],
)
def test_ordinary_words_and_numbers_name_nothing(question: str) -> None:
    assert identifier_phrases(question) == ()


def test_a_named_phrase_lifts_its_record_beside_the_components_own_named_clause() -> None:
    clause = {"multi_match": {"query": "q", "_name": "bm25"}}
    lifted = with_named_records(clause, ("NCT01642004",))
    assert lifted == {
        "bool": {
            "should": [
                clause,
                {"terms": {IDENTIFIER_FIELD: ["NCT01642004"], "boost": NAMED_RECORD_BOOST}},
            ]
        }
    }
    assert with_named_records(clause, ()) == clause


def test_the_pipelines_hybrid_lifts_the_named_record_in_every_sub_query_under_the_filters() -> None:
    hybrid = product_text_hybrid("NCT01642004 adverse events", 100, [{"term": {"source": "ctgov"}}])
    queries = hybrid["hybrid"]["queries"]
    assert len(queries) == 3
    for query in queries:
        terms = query["bool"]["should"][1]["terms"]
        assert terms[IDENTIFIER_FIELD] == ["NCT01642004"]
    assert hybrid["hybrid"]["filter"] == {"bool": {"filter": [{"term": {"source": "ctgov"}}]}}
    unnamed = product_text_hybrid("adverse events", 100)["hybrid"]["queries"]
    assert "multi_match" in unnamed[0]


def test_registry_ids_are_the_forms_only_a_record_has() -> None:
    text = "NCT03548935 vs nct01642004; PMID: 32043980, doi:10.1038/sj.bjc.6605965. PMC2994229 ARROW"
    assert registry_ids(text) == (
        "NCT03548935",
        "nct01642004",
        "32043980",
        "10.1038/sj.bjc.6605965",
        "PMC2994229",
    )


def test_absent_only_when_no_hit_carries_any_named_id() -> None:
    hits = [["NCT01642004", "CA209-017"], None, ["32043980"]]
    assert absent_records("NCT03548935 eligibility criteria", hits) == ("NCT03548935",)
    assert absent_records("nct01642004 or NCT03548935", hits) == ()  # one is here: route on it
    assert absent_records("ARROW eligibility", hits) == ()  # an acronym may be a word: never "absent"
    assert absent_records("eligibility", []) == ()


def test_the_words_besides_identifiers_leave_out_every_token_of_a_named_phrase() -> None:
    assert words_besides_identifiers("GRECCAR 2 trial results") == ("trial", "results")
    assert words_besides_identifiers("methods of NCT03418623?") == ("methods", "of")
    assert words_besides_identifiers("PMID 30578883 results") == ("results",)
    assert words_besides_identifiers("exclusion criteria") == ("exclusion", "criteria")
