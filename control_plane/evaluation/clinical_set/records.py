"""The records a clinical query can be about, with the words that name them and their chunks.

A record is one parsed document (ClinicalTrials.gov study, PMC article or MEDLINE citation) chunked
exactly as ``biohybrid ingest`` chunks it by default, so judged chunk ids are the ids the index holds.
"""

from __future__ import annotations

import gzip
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.documents import Document

MEDLINE_RCT: Final = "Randomized Controlled Trial"
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")


@dataclass(frozen=True)
class Record:
    """One document as the query builder sees it."""

    doc_id: str
    source: str
    title: str
    # Exact names: NCT id, acronym, PMID ... (what an exact-term query may use).
    identifiers: tuple[str, ...]
    # A condition and an intervention (or the article's key terms): a paraphrase query's topic.
    conditions: tuple[str, ...]
    interventions: tuple[str, ...]
    chunks: tuple[Chunk, ...]


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        return tuple(str(item) for item in value if item)
    return (str(value),) if value else ()


def to_record(document: Document, strategy: str = "sentence") -> Record:
    """The record of a parsed document, chunked with the ingest defaults (``strategy`` aside)."""
    meta = document.metadata
    identifiers = tuple(
        value for key in ("nct_id", "acronym", "pmid", "pmcid", "doi") for value in _strings(meta.get(key))
    )
    if document.source == "ctgov":
        conditions = _strings(meta.get("conditions"))
        interventions = _strings(meta.get("intervention_mesh_terms"))
    else:
        chemicals = [str(c) for c in meta.get("chemicals") or [] if c and c != "Placebos"]
        headings = [h for h in meta.get("mesh_headings") or [] if isinstance(h, dict) and h.get("major")]
        major = [str(h.get("descriptor")) for h in headings if h.get("descriptor") not in chemicals]
        conditions = _named_first(major, document.title)[:1]
        interventions = _named_first(chemicals, document.title)[:1]
    return Record(
        doc_id=document.doc_id,
        source=document.source,
        title=document.title,
        identifiers=identifiers,
        conditions=conditions,
        interventions=interventions,
        chunks=tuple(chunk(document, strategy=strategy)),
    )


def _named_first(terms: Sequence[str], title: str) -> tuple[str, ...]:
    """The terms the title names (as the authors word the topic) before the others."""
    lowered = title.lower()
    return tuple(sorted(terms, key=lambda term: term.lower() not in lowered))


def is_structured_trial_abstract(document: Document) -> bool:
    """A MEDLINE citation worth asking clinical questions of: a randomised trial whose abstract is
    labelled (it has METHODS and RESULTS parts, the natural section targets)."""
    kinds = {section.kind for section in document.sections}
    types = _strings(document.metadata.get("publication_types"))
    return MEDLINE_RCT in types and {"methods", "results"} <= kinds


def medline_articles(path: Path, pmids: Iterable[str]) -> Iterator[ET.Element]:
    """The ``PubmedArticle`` elements of ``path`` whose PMID is in ``pmids`` (streamed)."""
    wanted = set(pmids)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as stream:
        for _, element in ET.iterparse(stream, events=("end",)):
            if element.tag != "PubmedArticle":
                continue
            pmid = element.findtext("MedlineCitation/PMID")
            if pmid in wanted:
                yield element
            else:
                element.clear()


def write_medline_subset(path: Path, articles: Sequence[ET.Element]) -> None:
    """A PubMed XML file holding exactly ``articles``, readable by the MEDLINE parser."""
    root = ET.Element("PubmedArticleSet")
    root.extend(articles)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def content_words(text: str) -> int:
    return len(_WORD.findall(text))
