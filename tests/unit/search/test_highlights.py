"""Highlight offsets: hand-counted spans, then a generated-case property check."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from control_plane.search.highlights import Span, highlight_spans
from control_plane.words.atoms import light_stem


@pytest.mark.parametrize(
    ("words", "stem"),
    [
        (["trial", "trials"], "trial"),
        (["dose", "doses", "dosing", "dosed"], "dos"),
        (["study", "studies", "studied"], "study"),
        (["enroll", "enrolled", "enrolling"], "enroll"),
        (["stop", "stopped", "stopping"], "stop"),
        (["bleed", "bleeds", "bleeding"], "bleed"),
        (["virus"], "virus"),
        (["analysis"], "analysis"),
        (["brca1"], "brca1"),
        (["the"], "the"),
    ],
)
def test_light_stem(words: list[str], stem: str) -> None:
    assert {light_stem(word) for word in words} == {stem}


def _offsets(spans: list[Span]) -> list[tuple[int, int, str]]:
    return [(s.start, s.end, s.text) for s in spans]


def test_plural_and_case() -> None:
    assert _offsets(highlight_spans("Two trials and one trial", "Trial")) == [
        (4, 10, "trials"),
        (19, 24, "trial"),
    ]


def test_dosing_finds_dose_and_doses() -> None:
    assert _offsets(highlight_spans("The dose and the doses.", "dosing")) == [
        (4, 8, "dose"),
        (17, 22, "doses"),
    ]


def test_stop_words_are_ignored() -> None:
    assert _offsets(highlight_spans("the effect of the dose", "the effect of dose")) == [
        (4, 10, "effect"),
        (18, 22, "dose"),
    ]


def test_matches_separated_by_whitespace_merge() -> None:
    assert _offsets(highlight_spans("Serious adverse  events occurred", "adverse events")) == [
        (8, 23, "adverse  events")
    ]


def test_word_boundaries() -> None:
    assert highlight_spans("moderate doses", "rate") == []


TEXT = "Serum 25-hydroxyvitamin D in COVID-19 and COVID 19 and covid-2019"


def test_hyphenated_and_numeric_query_tokens() -> None:
    assert _offsets(highlight_spans(TEXT, "hydroxyvitamin COVID-19")) == [
        (9, 23, "hydroxyvitamin"),
        (29, 37, "COVID-19"),
        (42, 50, "COVID 19"),
    ]
    assert _offsets(highlight_spans(TEXT, "25-hydroxyvitamin")) == [(6, 23, "25-hydroxyvitamin")]
    assert _offsets(highlight_spans("3.5 mg, not 3 or 5", "3.5")) == [(0, 3, "3.5")]
    assert _offsets(highlight_spans("aspirin or warfarin", "warfarin,aspirin")) == [
        (0, 7, "aspirin"),
        (11, 19, "warfarin"),
    ]


def test_overlapping_matches_merge() -> None:
    assert _offsets(highlight_spans("COVID-19 now", "covid covid-19")) == [(0, 8, "COVID-19")]


def test_quoted_phrase_is_one_span_when_present() -> None:
    text = "quality of life improved; life quality fell"
    assert _offsets(highlight_spans(text, '"quality of life"')) == [(0, 15, "quality of life")]
    assert _offsets(highlight_spans(text, '"quality of life" quality')) == [
        (0, 15, "quality of life"),
        (31, 38, "quality"),
    ]


def test_absent_quoted_phrase_falls_back_to_its_words() -> None:
    assert _offsets(highlight_spans("life and quality", "“quality of life”")) == [
        (0, 4, "life"),
        (9, 16, "quality"),
    ]


def test_exact_analyzer_does_not_stem() -> None:
    assert _offsets(highlight_spans("trial Trials", "trials", analyzer="exact")) == [(6, 12, "Trials")]
    with pytest.raises(ValueError, match="exact"):
        highlight_spans("x", "x", analyzer="porter")


VOCABULARY = [
    "trial",
    "Trials",
    "dose",
    "dosing",
    "COVID-19",
    "25-hydroxyvitamin",
    "D",
    "the",
    "of",
    "İnsulin",
    "straße",
    "café",
    "3.5",
    "mg/kg",
    "BRCA1",
    "adverse",
    "events",
    "quality",
    "life",
    "",
]
SEPARATORS = [" ", "  ", "\n", "-", ", ", "; ", "(", ")", "_", '"']


def _random_text(rng: random.Random, words: int) -> str:
    return "".join(rng.choice(VOCABULARY) + rng.choice(SEPARATORS) for _ in range(words))


def test_property_spans_are_exact_sorted_and_disjoint() -> None:
    rng = random.Random(20240605)
    for _ in range(1500):
        text = _random_text(rng, rng.randint(0, 30))
        query = _random_text(rng, rng.randint(1, 5))
        if rng.random() < 0.3:
            query += f' "{rng.choice(VOCABULARY)} {rng.choice(VOCABULARY)}"'
        spans = highlight_spans(text, query)
        for span in spans:
            assert 0 <= span.start < span.end <= len(text)
            assert text[span.start : span.end] == span.text, (text, query, span)
            assert text[span.start].isalnum() and text[span.end - 1].isalnum(), (text, query, span)
        for before, after in pairwise(spans):
            gap = text[before.end : after.start]
            assert before.end < after.start and not gap.isspace(), (text, query, before, after)
