from __future__ import annotations

import datetime as dt

import pytest

from control_plane.clinical.labels import intent_hint
from control_plane.ingestion.dates import date_from_parts, parse_loose_date
from control_plane.ingestion.parsers.dosage import dosage_facts
from control_plane.ingestion.parsers.eligibility import split_criteria
from control_plane.ingestion.section_kinds import classify_heading
from control_plane.ingestion.sentences import sentence_spans
from control_plane.ingestion.textnorm import split_paragraphs, unescape_markdown
from control_plane.ingestion.tokens import HuggingFaceTokenCounter, RegexTokenCounter


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def test_sentences_respect_abbreviations_and_decimals() -> None:
    text = (
        "Doses were 2.5 mg/kg (e.g. in Fig. 2). Smith et al. reported it. "
        "Was it significant? Yes (P < 0.05).\nNext line"
    )
    assert _sentences(text) == [
        "Doses were 2.5 mg/kg (e.g. in Fig. 2).",
        "Smith et al. reported it.",
        "Was it significant?",
        "Yes (P < 0.05).",
        "Next line",
    ]


def test_sentence_spans_work_inside_a_region() -> None:
    text = "XX First one. Second one. YY"
    assert [text[s:e] for s, e in sentence_spans(text, 3, 25)] == ["First one.", "Second one."]


def test_wrapped_registry_text_is_reflowed() -> None:
    block = """
        Inclusion Criteria:

          -  history within the last two years of mood
             disturbances;
          -  age 18 to 50
    """
    assert split_paragraphs(block) == [
        "Inclusion Criteria:",
        "- history within the last two years of mood disturbances;",
        "- age 18 to 50",
    ]
    assert split_paragraphs("a\nb\n\nc", lines_are_paragraphs=True) == ["a", "b", "c"]
    assert unescape_markdown(r"dose \>10 mg \[ref\]") == "dose >10 mg [ref]"


def test_criteria_headings_split_inclusion_from_exclusion() -> None:
    blocks = split_criteria(
        [
            "For the first stage:",
            "- INCLUSION CRITERIA:",
            "age 18 or older",
            "Key Exclusion Criteria: pregnancy",
            "prior chemotherapy",
        ]
    )
    assert [(b.kind, b.heading, b.paragraphs) for b in blocks] == [
        ("eligibility", "Eligibility Criteria", ("For the first stage:",)),
        ("inclusion", "Inclusion Criteria", ("age 18 or older",)),
        ("exclusion", "Key Exclusion Criteria", ("pregnancy", "prior chemotherapy")),
    ]
    # PDQ layout: every item under these headings is a requirement to meet, so they are inclusion lists
    pdq = split_criteria(["DISEASE CHARACTERISTICS:", "stage IIIB", "PRIOR CONCURRENT THERAPY:", "No chemo"])
    assert [(b.kind, b.heading) for b in pdq] == [
        ("inclusion", "Disease Characteristics"),
        ("inclusion", "Prior Concurrent Therapy"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2014-08-05", dt.date(2014, 8, 5)),
        ("2020-04", dt.date(2020, 4, 1)),
        ("June 8, 2015", dt.date(2015, 6, 8)),
        ("August 2005", dt.date(2005, 8, 1)),
        ("1998 Dec-1999 Jan", dt.date(1998, 12, 1)),
        ("2001", dt.date(2001, 1, 1)),
        ("", None),
        ("unknown", None),
    ],
)
def test_loose_dates(text: str, expected: dt.date | None) -> None:
    assert parse_loose_date(text) == expected


def test_dates_from_parts() -> None:
    assert date_from_parts("2000", "Feb", "24") == dt.date(2000, 2, 24)
    assert date_from_parts("2000", "02", "31") == dt.date(2000, 2, 1)
    assert date_from_parts("2000", "Summer") == dt.date(2000, 6, 1)
    assert date_from_parts(None) is None


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        ("Materials and Methods", "methods"),
        ("materials|methods", "methods"),
        ("Results and Discussion", "results"),
        ("Conclusions/Significance", "conclusions"),
        ("Adverse events", "adverse_events"),
        ("Primary endpoint", "outcomes"),
        ("Competing interests", "other"),
    ],
)
def test_heading_classification(heading: str, kind: str) -> None:
    assert classify_heading(heading) == kind


@pytest.mark.parametrize(
    ("kind", "headings", "intent"),
    [
        ("inclusion", ("Eligibility", "Inclusion Criteria"), "eligibility"),
        ("adverse_events", ("Results", "Adverse Events"), "ae"),
        ("outcomes", ("Outcome Measures", "Primary Outcome Measures"), "endpoint"),
        ("outcome_results", ("Results", "Outcome Results"), "outcome"),
        ("interventions", ("Arms and Interventions", "Arms"), "dosage"),
        ("conditions", ("Conditions",), "indications"),
        ("results", ("Results", "Side effects of treatment"), "ae"),
        ("results", ("Results", "Patient characteristics"), "results"),
        ("methods", ("Methods",), "methods"),
        ("discussion", ("Discussion",), None),
    ],
)
def test_intent_rule_table(kind: str, headings: tuple[str, ...], intent: str | None) -> None:
    assert intent_hint(kind, headings) == intent


def test_dosage_facts() -> None:
    facts = dosage_facts("Lenalidomide 10 mg PO daily; 75 mg/m2 IV every 3 weeks")
    assert facts == {
        "doses": ["10 mg", "75 mg/m2"],
        "frequencies": ["daily", "every 3 weeks"],
        "routes": ["PO", "IV"],
    }
    assert dosage_facts("Behavioural counselling") == {}


def test_token_segments_are_cut_safe(token_counter: HuggingFaceTokenCounter) -> None:
    text = "Supercalifragilistic dosing: 3.5mg/kg, twice."
    segments = token_counter.segments(text)
    assert sum(s.tokens for s in segments) == token_counter.count(text)
    for segment in segments:
        assert token_counter.count(text[segment.start : segment.end]) == segment.tokens
    assert RegexTokenCounter().count(text) == len(RegexTokenCounter().segments(text)) == 11
