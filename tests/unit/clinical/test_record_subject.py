"""What a record declares it is about, and which records declare a question's topic (hand-made cases)."""

from __future__ import annotations

from control_plane.clinical.record_subject import (
    Declarations,
    record_subject,
    record_subjects,
    specific_words,
)

TNBC = record_subject(
    "Immunotherapy Combinations in Triple-Negative Breast Cancer (Morpheus-TNBC) \u203a Eligibility",
    ["Triple Negative Breast Cancer", "Breast Neoplasms"],
)
COHORT = record_subject(
    "Cohort Study of Pioglitazone and Cancer Incidence in Participants With Diabetes Mellitus \u203a Summary",
    ["Diabetes Mellitus, Type 2, Cancer", "Diabetes Mellitus"],
)


def test_specific_words_leave_out_stop_words_and_words_naming_no_topic() -> None:
    assert specific_words("for breast cancer trials") == {"breast", "cancer"}
    assert specific_words("side effects of the treatment") == {"sid", "effect"}
    assert specific_words("of the patients in these studies") == frozenset()


def test_a_subject_is_the_records_title_and_declared_topics_not_the_chunks_headings() -> None:
    assert {"tripl", "negativ", "breast", "cancer", "neoplasm", "tnbc"} <= TNBC
    assert "eligibility" not in TNBC  # a heading of the chunk, not the record's title
    assert record_subject(None, None) == frozenset()
    assert record_subject("Pioglitazone cohort", None) == {"pioglitazon", "cohort"}


def test_a_record_declares_a_topic_when_its_subject_holds_every_topic_word() -> None:
    """The diabetes cohort counts cancers but declares no breast cancer; the TNBC trial does."""
    declarations = Declarations(specific_words("breast cancer"), {"tnbc": TNBC, "cohort": COHORT})
    assert declarations.declaring() == {"tnbc"}
    assert Declarations(frozenset(), {"tnbc": TNBC}).declaring() == frozenset()


def test_record_subjects_read_hits_once_per_record_and_skip_records_declaring_nothing() -> None:
    hits: list[dict[str, object]] = [
        {"doc_id": "A", "title_path": "Breast cancer trial \u203a Criteria", "topics": ["Breast Neoplasms"]},
        {"doc_id": "A", "title_path": "ignored \u203a later chunk"},
        {"doc_id": "B"},
        {"doc_id": 7, "title_path": "not a record id"},
        {"doc_id": "C", "topics": "not a list", "title_path": 3},
    ]
    assert record_subjects(hits) == {"A": {"breast", "cancer", "neoplasm"}}
