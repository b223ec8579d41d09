"""Graded chunk judgments derived from record structure (a silver standard).

For a query about record R with intents I:
    grade 2  a chunk of R in a section (or table) that answers one of I, holding at least
             ``MIN_ANSWER_WORDS`` words besides its label (a stub such as "Time frame: 1 year" answers
             nothing);
    grade 1  every other chunk of R;
    no grade chunks of other records.
A query with no clinical intent is answered by R's overview (title, brief summary, abstract, background).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from control_plane.evaluation.clinical_set.records import Record, content_words
from control_plane.ingestion.chunking import Chunk

MIN_ANSWER_WORDS: Final = 8
NO_INTENT: Final = "none"
_TIME_FRAME = re.compile(r"time frame:[^.]*\.?", re.IGNORECASE)

# What answers each intent, read from the section kinds the parsers give headings (and table flags).
_ANSWERS: Final[dict[str, Callable[[Chunk], bool]]] = {
    "eligibility": lambda c: c.section in {"eligibility", "inclusion", "exclusion"},
    "adverse_events": lambda c: c.section == "adverse_events" or c.intent_hint == "ae",
    "dosage": lambda c: c.section in {"interventions", "dosage"} or c.intent_hint == "dosage",
    "results": lambda c: c.section in {"results", "outcome_results", "outcomes"},
    "methods": lambda c: c.section in {"methods", "design"},
    "indications": lambda c: c.section == "conditions",
    "tabular": lambda c: c.is_table,
    NO_INTENT: lambda c: c.section in {"title", "summary", "abstract", "background"},
}


def answer_words(item: Chunk) -> int:
    """Words of the chunk besides its section label and any time-frame clause."""
    text = _TIME_FRAME.sub(" ", item.text)
    return max(0, content_words(text) - content_words(item.section_label))


def answers(item: Chunk, intent: str) -> bool:
    """Whether ``item`` is a grade-2 answer to a question of this intent."""
    if intent not in _ANSWERS:
        raise ValueError(f"unknown intent {intent!r}; known: {sorted(_ANSWERS)}")
    return _ANSWERS[intent](item) and answer_words(item) >= MIN_ANSWER_WORDS


def answer_chunks(record: Record, intents: Iterable[str]) -> list[Chunk]:
    chosen = list(intents) or [NO_INTENT]
    return [item for item in record.chunks if any(answers(item, intent) for intent in chosen)]


def judge(record: Record, intents: Iterable[str]) -> dict[str, int]:
    """chunk id -> grade for a question about ``record`` with these intents ([] = no intent)."""
    best = {item.chunk_id for item in answer_chunks(record, intents)}
    return {item.chunk_id: 2 if item.chunk_id in best else 1 for item in record.chunks}
