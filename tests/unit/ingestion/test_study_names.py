"""A study's name read from its title: the two title forms that name one, and what names nothing."""

from __future__ import annotations

import pytest

from control_plane.ingestion.parsers.study_names import registered_study_names, study_names


@pytest.mark.parametrize(
    ("title", "names"),
    [
        (
            "Lung recruitment before surfactant administration in extremely preterm neonates with "
            "respiratory distress syndrome (IN-REC-SUR-E): a randomised, unblinded, controlled trial.",
            ("IN-REC-SUR-E",),
        ),
        ("5-year results of the GRECCAR 2 randomised trial.", ("GRECCAR 2",)),
        ("Risk factors ... in patients referred for a head CT, the SMART study.", ("SMART",)),
        ("Nivolumab in the CheckMate 017 open-label randomised phase 3 trial", ("CheckMate 017",)),
        ("Parent training in the D'SNAPP trial", ("D'SNAPP",)),
        (
            "Meropenem in critically ill patients (MERCY): A multicenter randomized double-blind trial.",
            ("MERCY",),
        ),
        # a name of up to three words, those after the first in capitals; the design word is not one
        ("Radial and Femoral Access: An Analysis From the GLOBAL LEADERS Trial.", ("GLOBAL LEADERS",)),
        ("older patients with cancer - The PIM POM study.", ("PIM POM",)),
        ("the SMART randomised trial", ("SMART",)),
        ("Results from the DRIVE EU study platform", ("DRIVE EU",)),
        # the same name twice is kept once
        ("The ARROW trial (ARROW): the ARROW randomised trial", ("ARROW",)),
    ],
)
def test_a_title_names_its_study(title: str, names: tuple[str, ...]) -> None:
    assert study_names(title) == names


@pytest.mark.parametrize(
    "title",
    [
        None,
        "",
        "A structural MRI study of binge drinking",  # no "the": a method, not a study's name
        "Results of the present study",  # a name has two capitals or more
        "Outcomes in non-small cell lung cancer (NSCLC) after surgery",  # brackets not before a colon
        # brackets before a colon, but what follows is no trial's or study's design
        "Coronavirus disease 2019 (COVID-19): a systematic review",
        "The Dutch version of the Oral Health Impact Profile (OHIP-NL): Translation and validity",
        "the Phase 3 trial of nivolumab",
    ],
)
def test_other_titles_name_no_study(title: str | None) -> None:
    assert study_names(title) == ()


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "Clinical trial registration information: A Controlled Study of Parent Training in the Treatment "
            "of ADHD in Young Children (D'SNAPP); http://clinicaltrial.gov/; NCT01684644.",
            ("D'SNAPP",),
        ),
        ("STAND Community Trial (STAND); https://clinicaltrials.gov/; NCT02694939", ("STAND",)),
        ("registered at (ARROW) ClinicalTrials.gov NCT00000001", ("ARROW",)),
    ],
)
def test_a_registration_statement_names_its_study(text: str, names: tuple[str, ...]) -> None:
    assert registered_study_names(text) == names


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "ClinicalTrials.gov: NCT02353455",  # a registry number, no name
        "Intervention Effects of Intensity and Delivery Style for Toddlers With Autism: https://clinicaltrials.gov/",
        "in adults (aged 18-65); https://clinicaltrials.gov/",  # brackets, but no name: one capital or none
        "non-small cell lung cancer (NSCLC). Outcomes were good",  # an abbreviation, not before a registry
    ],
)
def test_other_text_names_no_registered_study(text: str | None) -> None:
    assert registered_study_names(text) == ()
