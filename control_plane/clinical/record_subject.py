"""What a record says it is about, and whether that covers what a question about many records asks.

A question about many records ("eligibility for breast cancer trials") asks for every record on its
topic. The fused ranking is a weak judge of that: a diabetes cohort that counts breast cancers among its
outcomes can outscore a breast-cancer trial whose only chunk in the window is its criteria. A record's
own title and declared topics (a trial's conditions and their MeSH terms, an article's MeSH headings and
keywords: ingestion/topics.py) say what it is about. A record *declares* the question's topic when its
subject holds every specific word of the topic (words compared as the detector reads them: case-folded,
lightly stemmed; stop words and words naming no topic, :data:`GENERIC_WORDS`, left out). Routing then
counts such a record as fully topical (clinical/section_routing.py). A record that declares something else is
not excluded on that ground: declarations are partial (a trial declares its conditions, rarely the
population or the setting a question adds: "pregnancy and postpartum studies"), and excluding them
cost clinical-fresh/dev's many-records questions 0.02 to 0.05 nDCG@10 (either path, either fusion).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from control_plane.words.atoms import ENGLISH_STOP_WORDS, atoms

GENERIC_WORDS: Final = frozenset(
    """study studies trial trials treatment treatments therapy therapies drug drugs medication
    medications medicine medicines patient patients participant participants people person subject
    subjects intervention interventions arm arms experimental group groups record records paper
    article research clinical""".split()  # noqa: SIM905 - a word list reads better as text
)
"""Words that name no topic of their own: "side effects of the treatment" asks about every record."""
VAGUE_WORDS: Final = GENERIC_WORDS | ENGLISH_STOP_WORDS
TITLE_SEPARATOR: Final = " \u203a "  # a chunk's title_path: the record's title, then its headings


def specific_words(text: str) -> frozenset[str]:
    """The text's words that name something (their comparison keys), vague words left out."""
    return frozenset(
        atom.key for atom in atoms(text) if text[atom.start : atom.end].lower() not in VAGUE_WORDS
    )


def record_subject(title_path: str | None, topics: Iterable[str] | None) -> frozenset[str]:
    """The specific words of a record's title (the first part of a chunk's ``title_path``) and of its
    declared ``topics``: empty when the chunk carries neither."""
    title = (title_path or "").split(TITLE_SEPARATOR, 1)[0]
    return frozenset().union(specific_words(title), *(specific_words(topic) for topic in topics or ()))


@dataclass(frozen=True)
class Declarations:
    """A question's topic words and the subjects of the records routing judges (record id -> subject;
    a record without one is left out: nothing is known of what it declares)."""

    topic_words: frozenset[str]
    subjects: Mapping[str, frozenset[str]]

    def declaring(self) -> frozenset[str]:
        """The records whose subject holds every topic word; none when the question names no topic."""
        if not self.topic_words:
            return frozenset()
        return frozenset(doc for doc, subject in self.subjects.items() if self.topic_words <= subject)


def record_subjects(sources: Iterable[Mapping[str, object]]) -> dict[str, frozenset[str]]:
    """Record id -> subject, read from hits' ``_source`` (``doc_id``, ``title_path``, ``topics``) once per
    record; a record whose chunks carry neither title nor topics is left out."""
    subjects: dict[str, frozenset[str]] = {}
    for source in sources:
        doc_id = source.get("doc_id")
        if not isinstance(doc_id, str) or doc_id in subjects:
            continue
        title, topics = source.get("title_path"), source.get("topics")
        subject = record_subject(
            title if isinstance(title, str) else None,
            [t for t in topics if isinstance(t, str)] if isinstance(topics, list) else None,
        )
        if subject:
            subjects[doc_id] = subject
    return subjects
