"""One entry point for every source: pick the parser by dataset id or by file, stream documents and errors.

``iter_documents("pmc")`` walks the dataset's files in its folder (``datasets.locate.dataset_folder``);
``iter_documents(path)`` and ``iter_documents([paths...])`` parse given files (a folder means its files).
Bulk callers get :class:`~control_plane.ingestion.errors.ParseError` items inline, log them and go on.

The same record can come from several files: ClinicalTrials.gov serves a trial as legacy XML and as JSON,
and a merged record's old NCT id file holds the surviving record. The streams here yield every form (a
file-level view); callers that index keep one per id with :func:`most_complete_forms` and
:func:`completeness` (as the ingest run does) or :func:`unique_documents` (in memory): the most complete
form wins, and among equally complete forms the first in file order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Final

from control_plane.datasets.locate import dataset_folder
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError, raise_errors
from control_plane.ingestion.parsers.beir import iter_beir, parse_beir
from control_plane.ingestion.parsers.ctgov import iter_ctgov, parse_ctgov
from control_plane.ingestion.parsers.jats import iter_jats, parse_jats
from control_plane.ingestion.parsers.medline import iter_medline, parse_medline
from control_plane.ingestion.parsers.pdf import iter_pdf, parse_pdf
from control_plane.ingestion.parsers.xml_text import sniff_root_tag

__all__ = [
    "DATASET_FILES",
    "Completeness",
    "ParseError",
    "completeness",
    "dataset_files",
    "iter_beir",
    "iter_ctgov",
    "iter_documents",
    "iter_jats",
    "iter_medline",
    "iter_pdf",
    "most_complete_forms",
    "parse_beir",
    "parse_ctgov",
    "parse_documents",
    "parse_jats",
    "parse_medline",
    "parse_pdf",
    "parser_for",
    "unique_documents",
]

DocumentStream = Iterator[Document | ParseError]
FileParser = Callable[[Path], DocumentStream]

DATASET_FILES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "pmc": ("pmc", ("*.nxml",)),
    "ctgov": ("clinicaltrials", ("xml/*.xml", "json/*.json")),
    "medline": ("medline", ("*.xml.gz", "*.xml")),
    "nfcorpus": ("nfcorpus", ("corpus.jsonl",)),
    "scifact": ("scifact", ("corpus.jsonl",)),
}
"""Each dataset id's folder and the glob patterns of its document files inside it."""

_PARSERS_BY_ROOT_TAG: Final[dict[str, FileParser]] = {
    "article": iter_jats,
    "clinical_study": iter_ctgov,
    "PubmedArticleSet": iter_medline,
}


def dataset_files(dataset: str, root: Path | None = None) -> list[Path]:
    """The sorted document files of a dataset id (under ``root``, a folder holding the dataset's folder,
    when given); ``ValueError`` lists the known ids."""
    known = DATASET_FILES.get(dataset)
    if known is None:
        raise ValueError(f"unknown dataset {dataset!r}; known datasets: {', '.join(DATASET_FILES)}")
    folder, patterns = known
    base = root / folder if root is not None else dataset_folder(folder)
    return sorted({path for pattern in patterns for path in base.glob(pattern)})


def _unrecognised(path: Path) -> DocumentStream:
    yield ParseError(
        path, "file", "unrecognised file type (expected .nxml, .jsonl, .json, .xml, .xml.gz or .pdf)"
    )


def _missing(path: Path) -> DocumentStream:
    yield ParseError(path, "file", "no such file")


def parser_for(path: Path) -> FileParser:
    """Choose a parser from the suffix, or for ``.xml``/``.xml.gz`` from the root element's name."""
    if not path.is_file():
        return _missing
    name = path.name.lower()
    if name.endswith(".pdf"):
        return iter_pdf
    if name.endswith(".nxml"):
        return iter_jats
    if name.endswith(".jsonl"):
        return iter_beir
    if name.endswith(".json"):
        return iter_ctgov
    if name.endswith((".xml", ".xml.gz")):
        try:
            root_tag = sniff_root_tag(path)
        except (OSError, EOFError):
            root_tag = None
        return _PARSERS_BY_ROOT_TAG.get(root_tag or "", _unrecognised)
    return _unrecognised


def _expand(source: str | Path) -> list[Path]:
    if isinstance(source, str) and source in DATASET_FILES:
        return dataset_files(source)
    path = Path(source)
    if path.is_dir():
        return sorted(child for child in path.rglob("*") if child.is_file())
    return [path]


def unknown_sources(sources: Iterable[str]) -> list[str]:
    """The sources that are neither a dataset id nor an existing file or folder (a typo, a wrong folder):
    refused before an ingest starts rather than reported as skipped records after it ran."""
    return [s for s in sources if s not in DATASET_FILES and not Path(s).exists()]


def iter_documents(sources: str | Path | Iterable[str | Path]) -> DocumentStream:
    """Lazily parse dataset ids, files or folders; errors are yielded in place and parsing goes on."""
    items = [sources] if isinstance(sources, str | Path) else list(sources)
    for source in items:
        for path in _expand(source):
            yield from parser_for(path)(path)


def parse_documents(sources: str | Path | Iterable[str | Path]) -> Iterator[Document]:
    """Strict :func:`iter_documents`: raises the first :class:`ParseError`."""
    return raise_errors(iter_documents(sources))


# -- one form per document -------------------------------------------------------------------------

Completeness = tuple[int, int, int]
_WORD: Final = re.compile(r"[^\W_]+")


def completeness(document: Document) -> Completeness:
    """How complete a form of a record is, compared in this order: tables (for a registry record, the
    reported results: outcome measures and adverse-event tables), sections (registry modules present
    and non-empty), then words of canonical text (letters and digits, so the list markers and line
    layout that differ between XML and JSON do not count)."""
    return (len(document.tables), len(document.sections), len(_WORD.findall(document.text)))


def most_complete_forms(sources: str | Path | Iterable[str | Path]) -> dict[str, Completeness]:
    """For each document id that more than one registry record among ``sources`` carries, the
    completeness of its most complete form. Only ClinicalTrials.gov files are read (a second, cheap
    parse); other sources are never duplicated across files this way and are not read."""
    items = [sources] if isinstance(sources, str | Path) else list(sources)
    seen: dict[str, list[Completeness]] = {}
    for path in (path for source in items for path in _expand(source)):
        if parser_for(path) is not iter_ctgov:
            continue
        for item in iter_ctgov(path):
            if isinstance(item, Document):
                seen.setdefault(item.doc_id, []).append(completeness(item))
    return {doc_id: max(forms) for doc_id, forms in seen.items() if len(forms) > 1}


def unique_documents(documents: Iterable[Document]) -> list[Document]:
    """One document per id, in first-appearance order: the most complete form (:func:`completeness`),
    the first of equally complete ones."""
    best: dict[str, Document] = {}
    for document in documents:
        kept = best.get(document.doc_id)
        if kept is None or completeness(document) > completeness(kept):
            best[document.doc_id] = document
    return list(best.values())
