"""The words of the clinical queries: one bank per split, so dev and test share no template and no
paraphrase vocabulary (tuning on dev cannot learn test's wording).

Each intent has ``exact`` phrasings (the section's own words, as a record labels it) and ``paraphrase``
phrasings (words the record does not use). ``{topic}`` is replaced by words that identify the record
(its id, title or its condition and intervention); ``{population}`` by a condition. Two-intent
questions join two phrasings with a bank's ``joiners``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

INTENTS: Final = (
    "eligibility",
    "adverse_events",
    "dosage",
    "results",
    "methods",
    "indications",
    "tabular",
)


@dataclass(frozen=True)
class IntentWords:
    exact: tuple[str, ...]
    paraphrase: tuple[str, ...]


@dataclass(frozen=True)
class TemplateBank:
    """The phrasings of one split."""

    name: str
    intents: Mapping[str, IntentWords]
    # A question with no clinical intent: only the topic, in a few wrappers.
    topical: tuple[str, ...]
    # "{first} {joiner} {second}": the second phrasing drops its {topic}.
    joiners: tuple[str, ...]
    # Population + outcome: a results question about one group of patients.
    population_outcome: tuple[str, ...]


DEV_BANK: Final = TemplateBank(
    name="dev",
    intents={
        "eligibility": IntentWords(
            exact=("eligibility criteria {topic}", "inclusion criteria of {topic}"),
            paraphrase=("who can join {topic}", "requirements to take part in {topic}"),
        ),
        "adverse_events": IntentWords(
            exact=("adverse events {topic}", "serious adverse events in {topic}"),
            paraphrase=("harms reported in {topic}", "what side effects did patients have in {topic}"),
        ),
        "dosage": IntentWords(
            exact=("dose {topic}", "dosing regimen of {topic}"),
            paraphrase=("how much was given in {topic}", "how often was the drug taken in {topic}"),
        ),
        "results": IntentWords(
            exact=("primary outcome results {topic}", "results of {topic}"),
            paraphrase=("did it work in {topic}", "what did {topic} find"),
        ),
        "methods": IntentWords(
            exact=("study design {topic}", "methods of {topic}"),
            paraphrase=("how was {topic} set up", "how were patients assigned in {topic}"),
        ),
        "indications": IntentWords(
            exact=("conditions studied in {topic}", "indication of {topic}"),
            paraphrase=("what disease is targeted by {topic}", "which illness does {topic} address"),
        ),
        "tabular": IntentWords(
            exact=("table of {topic}", "number of participants in {topic}"),
            paraphrase=("how many patients in {topic}", "what percentage of patients in {topic}"),
        ),
    },
    topical=("{topic}", "studies of {topic}"),
    joiners=("and",),
    population_outcome=("in {population}, what were the results of {topic}",),
)

TEST_BANK: Final = TemplateBank(
    name="test",
    intents={
        "eligibility": IntentWords(
            exact=("exclusion criteria {topic}", "eligibility requirements for {topic}"),
            paraphrase=("who may enter {topic}", "which patients could be recruited to {topic}"),
        ),
        "adverse_events": IntentWords(
            exact=("adverse effects of {topic}", "toxicity in {topic}"),
            paraphrase=("safety problems seen in {topic}", "what went wrong for patients in {topic}"),
        ),
        "dosage": IntentWords(
            exact=("dosage used in {topic}", "dose schedule {topic}"),
            paraphrase=("how many milligrams in {topic}", "amount administered in {topic}"),
        ),
        "results": IntentWords(
            exact=("outcome measures {topic}", "efficacy results {topic}"),
            paraphrase=("what was found in {topic}", "was {topic} successful"),
        ),
        "methods": IntentWords(
            exact=("trial design of {topic}", "methodology {topic}"),
            paraphrase=("how was {topic} conducted", "how was {topic} organised"),
        ),
        "indications": IntentWords(
            exact=("condition treated in {topic}", "disease indication {topic}"),
            paraphrase=("what illness is {topic} for", "which patients' disease does {topic} concern"),
        ),
        "tabular": IntentWords(
            exact=("tabulated data {topic}", "number of patients {topic}"),
            paraphrase=("how many people in {topic}", "what proportion of participants in {topic}"),
        ),
    },
    topical=("{topic}", "research on {topic}"),
    joiners=("plus", "as well as"),
    population_outcome=("for {population}: what was found in {topic}",),
)

BANKS: Final[dict[str, TemplateBank]] = {"dev": DEV_BANK, "test": TEST_BANK}
