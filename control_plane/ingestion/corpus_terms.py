"""The corpus as intent detection's corpus cues need it (clinical/corpus_cues.py): each record's listed
adverse-event terms, its chunks (adverse-event or not) as ingest cuts them, and what each record is
about. Read from the sources with ingest's own parsers and chunker, so the cues describe what the index
holds."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from control_plane.clinical.corpus_cues import (
    CAUSED_QUALIFIERS,
    DEFAULT_SELECTION,
    Chunk,
    CorpusCues,
    CueSelection,
    Heading,
    select_cues,
)
from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers import parse_documents, unique_documents
from control_plane.ingestion.run import IngestOptions
from control_plane.locations import CONFIG_DIR

DEFAULT_CUES_FILE: Final = CONFIG_DIR / "corpus_cues.json"
ADVERSE_EVENTS_INTENT: Final = "adverse_events"
ADVERSE_EVENT_HINT: Final = "ae"
EVENT_TABLE_KIND: Final = "adverse_events"
SUMMARY_ROW: Final = re.compile(r"\s*total\b", re.IGNORECASE)
TOPIC_FIELDS: Final = ("official_title", "conditions", "condition_mesh_terms", "keywords")
"""Metadata that says what a record is about, besides its title (trials: conditions; articles:
keywords). MeSH headings are left out: an article about a drug's harms is indexed under the harm."""


def event_terms(document: Document) -> list[str]:
    """The adverse-event names the record's event tables list (ClinicalTrials.gov results), without
    their summary rows ("Total, serious adverse events", "Total, all-cause mortality"): those name no
    harm."""
    terms: list[str] = []
    for table in document.tables:
        if table.kind != EVENT_TABLE_KIND or not table.facet_json:
            continue
        names = (str(event["term"]) for event in json.loads(table.facet_json).get("events", ()))
        terms.extend(name for name in names if not SUMMARY_ROW.match(name))
    return terms


def topic_texts(document: Document) -> Iterator[str]:
    """What the record is about: its title and its topic metadata (:data:`TOPIC_FIELDS`)."""
    yield document.title
    for name in TOPIC_FIELDS:
        value = document.metadata.get(name)
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | tuple):
            yield from (str(item) for item in value)


def headings(document: Document) -> Iterator[Heading]:
    """A MEDLINE citation's MeSH headings, each marked caused when a qualifier says so."""
    for heading in document.metadata.get("mesh_headings") or ():
        qualifiers = " ".join(str(q) for q in heading.get("qualifiers", ())).lower()
        caused = any(qualifier in qualifiers for qualifier in CAUSED_QUALIFIERS)
        yield Heading(str(heading.get("descriptor", "")), caused)


def build_corpus_cues(
    sources: Iterable[str | Path],
    heading_sources: Iterable[str | Path] = (),
    selection: CueSelection = DEFAULT_SELECTION,
) -> CorpusCues:
    """The adverse-event cue words of the corpus in ``sources`` (files, folders or dataset ids, as for
    ingest), judged against the MeSH headings of the MEDLINE citations in ``heading_sources``."""
    names = tuple(str(source) for source in sources)
    heading_names = tuple(str(source) for source in heading_sources)
    documents = unique_documents(parse_documents(names))
    strategy = IngestOptions.strategy
    chunks = [
        Chunk(piece.intent_hint == ADVERSE_EVENT_HINT, piece.text)
        for document in documents
        for piece in chunk(document, strategy)
        if not piece.near_empty
    ]
    terms = {document.doc_id: event_terms(document) for document in documents}
    terms = {doc_id: listed for doc_id, listed in terms.items() if listed}
    topics = [text for document in documents for text in topic_texts(document)]
    cited = [heading for citation in parse_documents(heading_names) for heading in headings(citation)]
    words = select_cues(terms, chunks, topics, cited, selection)
    counts = {
        "documents": len(documents),
        "chunks": len(chunks),
        "records_with_terms": len(terms),
        "headings": len(cited),
    }
    return CorpusCues({ADVERSE_EVENTS_INTENT: tuple(words)}, names, heading_names, selection, counts)
