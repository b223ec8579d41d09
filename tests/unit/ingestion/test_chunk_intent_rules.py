"""Dose statements, adverse-event outcome tables and near-empty chunks (issue 15, items 4.3-4.5)."""

from __future__ import annotations

import json

import pytest

from control_plane.clinical.labels import (
    chunk_intent,
    content_words,
    is_adverse_event_measure,
    is_near_empty,
    states_dose,
)
from control_plane.ingestion.assembly import SectionDraft, TableDraft, assemble_document
from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.documents import Document
from control_plane.ingestion.tokens import HuggingFaceTokenCounter, RegexTokenCounter


@pytest.mark.parametrize(
    "sentence",
    [
        "Patients received lenalidomide 10 mg/day.",
        "Paclitaxel 50 mg/m2 IV over 1 hour.",
        "Rats were dosed at 5 mg/kg by gavage.",
        "Minnow pairs were given PBDE-47 as a low dose (2.38 ± 0.63 μg PBDE-47/pair/day).",
        "Nelfinavir 1250 mg twice daily Monday-Sunday.",
        "Two 300mg/100mg Darunavir/Ritonavir tablets twice daily for 144 weeks.",
        "Metformin 500 mg b.i.d. with meals.",
        "Vitamin D 1000 IU was administered orally.",
        "Insulin 10 units s.c. before breakfast.",
        "Fluconazole (6 mg/kg) twice weekly.",
        "Repaglinide 0.5 mg PO 3 - 4 times a day before meals.",
        "Thoracic radiotherapy delivered 2 Gy per fraction.",
        "Minnows were fed bioencapsulated Artemia (1 mL) twice daily for 21 days.",
        "The drug was given at 1.5 g every 12 hours.",
        "Amoxicillin 500 mg 3x daily for 7 days.",
    ],
)
def test_dose_statements(sentence: str) -> None:
    assert states_dose(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Culture media were supplemented with 100 µg/mL ampicillin or 200 µg/mL hygromycin B.",
        "Full-strength LB (10 g tryptone, 5 g yeast extract, 10 g NaCl per L dH2O).",
        "A stock solution was prepared by dissolving 10.0 mg/mL in hexane before dosing.",
        "Alcohol intake (quartiles: <0.58, ⩾3.61–<11.08, ⩾11.08 g per day).",
        "Standard curves prepared for PBDE-47 ranged from 0 to 237.6 μg.",
        "In neonates weighing <750 g, appropriate dosing is not known.",
        "Bilirubin less than 1.5 mg/dL.",
        "The growth medium, flowing at a rate of ~1 mL/min, was introduced to the chamber.",
        "Various amounts of enzyme (5–200 µg) and 2 mM of substrate.",
        "Body mass index of 18 to 35 kg/m2, inclusive.",
        "Patients receive paclitaxel IV over 1 hour on days 1, 8 and 15.",
        "Specific activities were expressed as U/mg of pure enzyme.",
        "Answers limit daily life activities in 95% of participants.",
    ],
)
def test_not_dose_statements(sentence: str) -> None:
    assert not states_dose(sentence)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Number of Participants With Treatment Emergent Adverse Events (TEAE)", True),
        ("Percentage of Subjects With Serious Adverse Events (SAEs) During the Study", True),
        ("New Grade 3 or 4 Adverse Event (AE), Not Solely Related to HIV", True),
        ("Frequency of Highest Grade Chemotherapy/Acute RT Toxicities and Late RT Toxicities.", True),
        ("Number of Participants With Infusion-Related Reactions (IRR)", True),
        ("Safety and Tolerability of Drug X", True),
        ("Maximum Tolerated Dose (MTD) of Three-dimensional Conformal Radiation Therapy", False),
        ("Glucose Tolerance", False),
        ("Overall Survival (OS) Time in Months", False),
        ("Percentage of Participants Achieving EASI-75 (≥75% Improvement From Baseline) at Week 16", False),
        ("Number of Subjects With Neutralizing Response Against Anti-CMV Antibodies", False),
    ],
)
def test_adverse_event_measures(title: str, expected: bool) -> None:
    assert is_adverse_event_measure(title) is expected


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("adverse_events", "Time frame: 6 months\n\nFrequency threshold for other adverse events: 0%", True),
        ("adverse_events", "Frequency threshold for other adverse events: 0%", True),
        ("adverse_events", "Adverse events were collected at every visit.\n\nTime frame: 6 months", False),
        ("outcomes", "Time frame: 90 days.", True),
        ("outcomes", "Overall survival. Time frame: Five years.", False),
        ("interventions", "Arms: Arm #2 - placebo.", True),
        ("interventions", "Drug: Olaparib. Arms: Maintenance Olaparib.", False),
        ("design", "Study type: N/A.", True),
        ("design", "Study type: Observational. Enrollment: 1600 (Anticipated).", False),
        ("exclusion", "- contraindications for MRI", False),
        ("conditions", "Conditions: Malaria.", False),
        ("eligibility", "Time frame: irrelevant", False),
        # demographic fields that restrict nobody, split off the criteria: nothing to answer with
        ("eligibility", "Sex: All. Minimum age: N/A. Maximum age: N/A.", True),
        (
            "eligibility",
            "Sex: All. Minimum age: N/A. Maximum age: N/A. Accepts healthy volunteers: No.",
            True,
        ),
        (
            "eligibility",
            "Sex: All. Accepts healthy volunteers: No. Sampling method: Non-Probability Sample.",
            True,
        ),
        # an age, a sex or a word of its own restricts someone: content
        (
            "eligibility",
            "Sex: All. Minimum age: N/A. Maximum age: 5 Days. Accepts healthy volunteers: No.",
            False,
        ),
        ("eligibility", "Sex: Female. Minimum age: N/A. Maximum age: N/A.", False),
        ("eligibility", "Sex: All. Minimum age: N/A. Maximum age: N/A.\n\nIndividuals with APS", False),
    ],
)
def test_near_empty_sections(kind: str, text: str, expected: bool) -> None:
    assert is_near_empty(kind, text) is expected


def test_near_empty_tables_and_content_words() -> None:
    assert is_near_empty("outcome_results", "", ("Measure",))
    assert is_near_empty("outcome_results", "", ("Measure | Placebo | Drug", "Median | |"))
    assert not is_near_empty("outcome_results", "", ("Measure | Placebo", "Median | 12.5 (3.1)"))
    assert not is_near_empty("table", "", ("Strain", "IN56"))
    assert content_words("Study type: Observational. Phases: N/A. Masking: None (Open Label).") == 3


def test_chunk_intent_precedence() -> None:
    dose = "Patients received 10 mg/kg daily."
    assert chunk_intent("methods", ("Methods",), dose) == "dosage"
    assert chunk_intent("description", ("Detailed Description",), dose) == "dosage"
    assert chunk_intent("methods", ("Methods",), "We counted cells.") == "methods"
    # a specific intent from the headings or the parser is never replaced by dosage
    assert chunk_intent("methods", ("Methods", "Adverse events"), dose) == "ae"
    assert chunk_intent("results", ("Results",), dose) == "results"
    assert chunk_intent("inclusion", ("Eligibility", "Inclusion Criteria"), dose) == "eligibility"
    assert chunk_intent("outcome_results", ("Results",), "x", parser_intent="ae") == "ae"
    # near-empty wins over everything
    assert chunk_intent("adverse_events", ("Results", "Adverse Events"), "x", near_empty=True) is None


def _chunks(documents: list[Document], counter: HuggingFaceTokenCounter) -> list[tuple[Document, Chunk]]:
    return [(d, c) for d in documents for c in chunk(d, "sentence", counter=counter)]


def test_real_dose_chunks(pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter) -> None:
    dosage = [(d, c) for d, c in _chunks(pmc_documents, token_counter) if c.intent_hint == "dosage"]
    # PMC: only the fathead-minnow article states doses (of PBDE-47, in its methods); the lab articles'
    # reagent concentrations, media recipes and covariate intakes are not doses
    assert {d.doc_id for d, _ in dosage} == {"PMC2599765"}
    assert {c.title_path.split(" \u203a ", 1)[1] for _, c in dosage} == {
        "Abstract \u203a Methods",
        "Materials and Methods \u203a PBDE-47 exposures",
    }
    assert all(c.section == "methods" for _, c in dosage)


def test_real_ctgov_intents(ctgov_documents: list[Document], token_counter: HuggingFaceTokenCounter) -> None:
    ae_tables = 0
    for _, item in _chunks(ctgov_documents, token_counter):
        if item.section == "outcome_results":
            title = json.loads(item.facet_json or "{}")["title"]
            expected = None if item.near_empty else ("ae" if is_adverse_event_measure(title) else "outcome")
            assert item.intent_hint == expected, (item.chunk_id, title)
            ae_tables += item.intent_hint == "ae"
        if item.near_empty:
            assert item.intent_hint is None
        if item.intent_hint == "dosage" and item.section in ("description", "summary"):
            assert states_dose(item.text)
    assert ae_tables == 36
    ae_overview = [
        c
        for _, c in _chunks(ctgov_documents, token_counter)
        if c.section == "adverse_events" and not c.is_table
    ]
    assert sum(c.near_empty for c in ae_overview) == 12
    assert all(c.near_empty == (content_words(c.text) == 0) for c in ae_overview)


def test_near_empty_table_keeps_its_text_searchable() -> None:
    document = assemble_document(
        doc_id="NCT0",
        title="T",
        source="ctgov",
        doc_type="clinical_trial",
        url=None,
        publication_date=None,
        sections=[
            SectionDraft(
                "Adverse Events", "adverse_events", ("Results", "Adverse Events"), ("Time frame: 1 y",)
            )
        ],
        tables=[
            TableDraft(
                "Outcome Result 1", "outcome_results", "Safety", "<table/>", ("Measure",), (), None, "ae"
            ),
            TableDraft(
                "Outcome Result 2",
                "outcome_results",
                "Safety",
                "<table/>",
                ("Measure | A", "n | 3"),
                (),
                None,
                "ae",
            ),
        ],
    )
    overview, empty, full = chunk(document, "section", counter=RegexTokenCounter())
    assert (overview.near_empty, overview.intent_hint) == (True, None)
    assert (empty.near_empty, empty.intent_hint, empty.text) == (
        True,
        None,
        "Outcome Result 1: Safety\nMeasure",
    )
    assert (full.near_empty, full.intent_hint) == (False, "ae")
