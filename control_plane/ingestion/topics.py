"""What a record declares it is about, from its own metadata: a trial's conditions, their MeSH terms and
its keywords; an article's MeSH headings and keywords. Every chunk of the record carries them (a BM25
field), so a chunk that does not name its record's topic (a trial's criteria, its adverse-event table) is
still found by it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from control_plane.ingestion.documents import Document

# The metadata keys each source's parser fills with the record's declared topics.
TOPIC_KEYS: Final = ("conditions", "condition_mesh_terms", "mesh_terms", "keywords")


def record_topics(document: Document) -> tuple[str, ...]:
    """The record's declared topics in metadata order, each once (case-insensitively), blanks dropped."""
    seen: set[str] = set()
    topics: list[str] = []
    for value in _strings(document.metadata.get(key) for key in TOPIC_KEYS):
        folded = value.casefold()
        if folded not in seen:
            seen.add(folded)
            topics.append(value)
    return tuple(topics)


def _strings(values: Iterable[Any]) -> Iterable[str]:
    for value in values:
        if isinstance(value, list | tuple):
            yield from (" ".join(item.split()) for item in value if isinstance(item, str) and item.strip())
