"""Inclusion vs exclusion under the headings real registry records use (issue 15, item 4.2)."""

from __future__ import annotations

import pytest

from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers.eligibility import classify_heading, split_criteria
from control_plane.ingestion.tokens import HuggingFaceTokenCounter

ELIGIBILITY_KINDS = {"eligibility", "inclusion", "exclusion"}


@pytest.mark.parametrize(
    ("paragraph", "kind", "heading"),
    [
        ("- INCLUSION CRITERIA:", "inclusion", "Inclusion Criteria"),
        ("Exclusion criteria", "exclusion", "Exclusion criteria"),
        ("Key Exclusion Criteria:", "exclusion", "Key Exclusion Criteria"),
        ("Transplant Inclusion:", "inclusion", "Transplant Inclusion"),
        ("Non-inclusion criteria:", "exclusion", "Non-inclusion criteria"),
        ("NON INCLUSION CRITERIA", "exclusion", "Non Inclusion Criteria"),
        ("Inclusion Criteria Stage 1", "inclusion", "Inclusion Criteria Stage 1"),
        ("Exclusion Criteria for Stage 1", "exclusion", "Exclusion Criteria for Stage 1"),
        ("Inclusion criteria (Part B):", "inclusion", "Inclusion criteria (Part B)"),
        ("Biological Mother Inclusion/Exclusion:", "eligibility", "Biological Mother Inclusion/Exclusion"),
        ("DISEASE CHARACTERISTICS:", "inclusion", "Disease Characteristics"),
        ("PATIENT CHARACTERISTICS:", "inclusion", "Patient Characteristics"),
        ("PRIOR CONCURRENT THERAPY:", "inclusion", "Prior Concurrent Therapy"),
        ("Eligibility criteria:", "eligibility", "Eligibility Criteria"),
        (
            "For inclusion in the study subjects should fulfill the following criteria:",
            "inclusion",
            "Inclusion Criteria",
        ),
        ("Patients will be excluded if any of the following apply:", "exclusion", "Exclusion Criteria"),
        (
            "Eligibility criteria for the secondary randomisation to stop or continue cotrimoxazole "
            "prophylaxis randomisation Inclusion criteria",
            "inclusion",
            "Inclusion criteria",
        ),
    ],
)
def test_headings(paragraph: str, kind: str, heading: str) -> None:
    found = classify_heading(paragraph)
    assert found is not None
    assert (found.kind, found.heading) == (kind, heading)


@pytest.mark.parametrize(
    ("paragraph", "current"),
    [
        ("- Subjects with exclusion criteria required by local law", "exclusion"),
        ("- Additional drug-specific exclusion criteria might apply.", "exclusion"),
        ("* Exclusive involvement of the lateral branch (Medina lesion 001).", "exclusion"),
        ("Age:", "inclusion"),
        ("Cohort 1:", "inclusion"),
        ("For adolescent participants:", "inclusion"),
        ("Subjects of the vaccine group should in addition satisfy the following criterion:", "inclusion"),
        # lead-ins of the kind already open stay criteria paragraphs
        (
            "Subjects must meet all of the following inclusion criteria within 28 days prior to baseline:",
            "inclusion",
        ),
        (
            "For subjects in the vaccine group, the following exclusion criterion should be checked:",
            "exclusion",
        ),
        ("Inclusion criteria 13 is only for patients registered before starting chemotherapy:", "inclusion"),
        # a bulleted item is never a lead-in or a scoped heading
        ("- Patients excluded from other trials because of:", "inclusion"),
        ("- Previously met the randomisation Inclusion criteria", "inclusion"),
        # lower-case "exclusion criteria" at the end of a sentence is not a scoped heading
        ("Patients who meet any of the exclusion criteria", "exclusion"),
    ],
)
def test_criteria_that_are_not_headings(paragraph: str, current: str) -> None:
    assert classify_heading(paragraph, current) is None


def test_scope_follows_scoped_headings_and_leading_list_becomes_inclusion() -> None:
    blocks = split_criteria(
        [
            "Inclusion Criteria:",
            "age 3 months to 17 years",
            "Exclusion Criteria:",
            "poor adherence",
            "Eligibility criteria for the secondary randomisation to once vs twice daily dosing"
            " Inclusion criteria",
            "participating in ARROW",
            "Exclusion criteria",
            "likely to switch",
        ]
    )
    assert [(b.kind, b.heading, b.scope) for b in blocks] == [
        ("inclusion", "Inclusion Criteria", ""),
        ("exclusion", "Exclusion Criteria", ""),
        (
            "inclusion",
            "Inclusion criteria",
            "Eligibility criteria for the secondary randomisation to once vs twice daily dosing",
        ),
        (
            "exclusion",
            "Exclusion criteria",
            "Eligibility criteria for the secondary randomisation to once vs twice daily dosing",
        ),
    ]
    inferred = split_criteria(["Eligibility criteria:", "aged 13-20", "Exclusion criteria:", "urgent care"])
    assert [(b.kind, b.heading, b.paragraphs) for b in inferred] == [
        ("inclusion", "Inclusion Criteria", ("aged 13-20",)),
        ("exclusion", "Exclusion criteria", ("urgent care",)),
    ]
    # a leading list not followed by exclusion stays plain eligibility; no list at all is no block
    assert [b.kind for b in split_criteria(["aged 18+", "no prior therapy"])] == ["eligibility"]
    assert split_criteria([]) == []
    # a lead-in keeps its text
    (lead_in,) = split_criteria(
        ["For inclusion in the study subjects should fulfill the following criteria:", "1. x"]
    )
    assert lead_in.kind == "inclusion" and lead_in.paragraphs[0].startswith("For inclusion")


def _eligibility(document: Document) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.kind, s.title_path[1:]) for s in document.sections if s.title_path[:1] == ("Eligibility",)]


def _by_file(documents: list[Document], name: str) -> Document:
    return next(d for d in documents if d.metadata["file"] == name)


def test_real_non_standard_headings(ctgov_documents: list[Document]) -> None:
    # "Non-inclusion criteria:" and a lead-in sentence instead of "Inclusion Criteria:"
    assert _eligibility(_by_file(ctgov_documents, "NCT02679963.xml")) == [
        ("eligibility", ()),
        ("inclusion", ("Inclusion Criteria",)),
        ("exclusion", ("Non-inclusion criteria",)),
    ]
    exclusion = _by_file(ctgov_documents, "NCT02679963.xml")
    text = exclusion.span_text(next(s for s in exclusion.sections if s.kind == "exclusion"))
    assert text.startswith("1. Uncontrolled or symptomatic brain metastases")
    # PDQ layout, in both registry shapes
    for name in ("NCT00023673.xml", "NCT00023673.json"):
        assert _eligibility(_by_file(ctgov_documents, name))[1:] == [
            ("inclusion", ("Disease Characteristics",)),
            ("inclusion", ("Patient Characteristics",)),
            ("inclusion", ("Prior Concurrent Therapy",)),
        ]
    # staged criteria
    assert _eligibility(_by_file(ctgov_documents, "NCT03424005.xml"))[1:] == [
        ("inclusion", ("Inclusion Criteria Stage 1",)),
        ("inclusion", ("Inclusion criteria stage 2",)),
        ("exclusion", ("Exclusion Criteria for Stage 1",)),
    ]
    # criteria of the secondary randomisations, scoped
    for name in ("NCT02028676.xml", "NCT02028676.json"):
        sections = _eligibility(_by_file(ctgov_documents, name))[1:]
        assert [kind for kind, _ in sections] == ["inclusion", "exclusion"] * 3
        assert sections[2][1][0].startswith("Eligibility criteria for the secondary randomisation to once")
        assert sections[3][1] == (sections[2][1][0], "Exclusion criteria")
        assert sections[5][1][0].endswith("stop or continue cotrimoxazole prophylaxis randomisation")
    # a generic "Eligibility criteria:" list before "Exclusion criteria:" is the inclusion list
    assert [k for k, _ in _eligibility(_by_file(ctgov_documents, "NCT03630471.json"))] == [
        "eligibility",
        "inclusion",
        "exclusion",
    ]
    # a mixed heading for another participant is neither inclusion nor exclusion
    assert _eligibility(_by_file(ctgov_documents, "NCT01220531.xml"))[-1] == (
        "eligibility",
        ("Biological Mother Inclusion/Exclusion",),
    )


def test_no_heading_is_left_inside_a_block(ctgov_documents: list[Document]) -> None:
    """Every paragraph of every eligibility section is a criterion: nothing a heading rule would open a
    new block with is left inside one (so no criteria list sits under the wrong kind)."""
    for document in ctgov_documents:
        for section in document.sections:
            if section.kind not in ELIGIBILITY_KINDS or section.title_path == ("Eligibility",):
                continue
            for paragraph in document.span_text(section).split("\n\n"):
                found = classify_heading(paragraph, section.kind)
                assert found is None, (document.metadata["file"], section.label, paragraph)


def test_inclusion_and_exclusion_are_split_in_almost_every_record(ctgov_documents: list[Document]) -> None:
    with_criteria = [d for d in ctgov_documents if any(s.kind in ELIGIBILITY_KINDS for s in d.sections)]
    split = [d for d in with_criteria if any(s.kind == "inclusion" for s in d.sections)]
    assert len(split) == len(with_criteria) == 73
    both = [d for d in split if any(s.kind == "exclusion" for s in d.sections)]
    # no exclusion list: the PDQ record (requirements only), NCI-MATCH (inclusion only), three records
    # whose criteria text is one inclusion list, and NCT03133988 whose "Exclusion Criteria:" is empty
    assert len(both) == 66


def test_everything_in_eligibility_keeps_the_eligibility_intent(
    ctgov_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    stubs = []
    for document in ctgov_documents:
        for item in chunk(document, "sentence", counter=token_counter):
            if item.section in ELIGIBILITY_KINDS and item.near_empty:
                stubs.append(item.chunk_id)
                assert item.intent_hint is None, item.chunk_id
            elif item.section in ELIGIBILITY_KINDS:
                assert item.intent_hint == "eligibility", item.chunk_id
    # only demographic fields that restrict nobody ("Sex: All. Minimum age: N/A. Maximum age: N/A.")
    assert sorted(set(stubs)) == [
        "NCT00023673:chunk:9",
        "NCT01220531:chunk:7",
        "NCT01298141:chunk:6",
        "NCT03133988:chunk:4",
    ]
