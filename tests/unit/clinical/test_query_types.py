"""Query types: the rule's cases, in order, and the default weights."""

from __future__ import annotations

import pytest

from control_plane.clinical.intents import DetectedIntent
from control_plane.clinical.query_types import QueryType, classify_query
from control_plane.config.settings import Settings, load_settings


@pytest.mark.parametrize(
    "query",
    [
        "Results of NCT01234567 in older adults with heart failure",
        "nct01234567 adverse events reported",
        "What did PMID: 31452104 find about statins",
        "BRCA1 mutation carriers and ovarian cancer risk reduction",
        "trastuzumab in HER2 positive breast cancer",
        "pembrolizumab MK-3475 response in melanoma",
        'patients with "acute kidney injury" after surgery',
        "warfarin",
        "warfarin bleeding risk",
    ],
)
def test_exact_term(query: str) -> None:
    assert classify_query(query) is QueryType.EXACT_TERM


@pytest.mark.parametrize(
    "query",
    [
        "metformin versus sulfonylurea for glycaemic control in elderly",
        "statins compared with placebo for stroke prevention",
        "vitamin D and calcium or exercise for fracture prevention",
        "what is the long term effect of a diet low in saturated fat on cardiovascular events",
    ],
)
def test_complex(query: str) -> None:
    assert classify_query(query) is QueryType.COMPLEX


def test_two_clinical_intents_make_it_complex_tabular_does_not_count() -> None:
    query = "dosing of metformin in kidney disease"
    assert classify_query(query) is QueryType.PARAPHRASE
    assert classify_query(query, ["dosage", "adverse_events"]) is QueryType.COMPLEX
    assert classify_query(query, [DetectedIntent("dosage", 0.6), DetectedIntent("tabular", 0.9)]) is (
        QueryType.PARAPHRASE
    )


@pytest.mark.parametrize(
    "query",
    [
        "Do cholesterol statin drugs cause breast cancer?",
        "how does coffee affect liver health",
        "COVID-19 vaccines in pregnancy",
    ],
)
def test_paraphrase(query: str) -> None:
    assert classify_query(query) is QueryType.PARAPHRASE


def test_twelve_words_are_complex_eleven_without_other_signal_a_paraphrase() -> None:
    twelve = "does eating red meat every day raise the risk of colon cancer"
    assert len(twelve.split()) == 12
    assert classify_query(twelve) is QueryType.COMPLEX
    assert classify_query(twelve.rsplit(" ", 1)[0]) is QueryType.PARAPHRASE


def test_packaged_weights_per_type_sum_to_one_and_exact_terms_lean_lexical() -> None:
    settings = load_settings(environ={})
    assert settings.fusion.weights_by_query_type_enabled
    by_type = settings.fusion.weights_by_query_type
    assert by_type.exact_term is not None
    assert by_type.exact_term.model_dump() == {"bm25": 0.5, "splade": 0.1, "dense": 0.4}
    assert sum(by_type.exact_term.model_dump().values()) == pytest.approx(1.0)
    assert by_type.paraphrase is None and by_type.complex is None  # the global fusion.weights
    assert by_type == Settings().fusion.weights_by_query_type  # the model's defaults agree with the file
    assert str(QueryType.EXACT_TERM) == "exact_term"
