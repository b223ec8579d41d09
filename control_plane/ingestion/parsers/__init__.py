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
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
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
    "FORMATS",
    "Completeness",
    "ParseError",
    "SourceFormat",
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


@dataclass(frozen=True)
class SourceFormat:
    """One file format and its parser: the one row a new source adds. A file is this format when its
    name ends with one of ``suffixes``, or, for XML (``.xml``, ``.xml.gz``), when its root element is
    ``root_tag``."""

    name: str
    parse: FileParser
    suffixes: tuple[str, ...] = ()
    root_tag: str | None = None


FORMATS: Final[tuple[SourceFormat, ...]] = (
    SourceFormat("pdf", iter_pdf, suffixes=(".pdf",)),
    SourceFormat("jats", iter_jats, suffixes=(".nxml",), root_tag="article"),
    SourceFormat("beir", iter_beir, suffixes=(".jsonl",)),
    SourceFormat("ctgov", iter_ctgov, suffixes=(".json",), root_tag="clinical_study"),
    SourceFormat("medline", iter_medline, root_tag="PubmedArticleSet"),
)
_XML_SUFFIXES: Final = (".xml", ".xml.gz")


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
    suffixes = sorted({suffix for f in FORMATS for suffix in f.suffixes} | set(_XML_SUFFIXES))
    yield ParseError(path, "file", f"unrecognised file type (expected {', '.join(suffixes)})")


def _missing(path: Path) -> DocumentStream:
    yield ParseError(path, "file", "no such file")


def parser_for(path: Path) -> FileParser:
    """Choose a parser from the suffix, or for ``.xml``/``.xml.gz`` from the root element's name."""
    if not path.is_file():
        return _missing
    name = path.name.lower()
    for source_format in FORMATS:
        if name.endswith(source_format.suffixes):
            return source_format.parse
    if name.endswith(_XML_SUFFIXES):
        try:
            root_tag = sniff_root_tag(path)
        except (OSError, EOFError):
            root_tag = None
        by_tag = {f.root_tag: f.parse for f in FORMATS if f.root_tag is not None}
        return by_tag.get(root_tag or "", _unrecognised)
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
    return [s for s in sources if s not in DATASET_FILES and not _exists(s)]


def _exists(source: str) -> bool:
    """Whether ``source`` names a file or folder; a name the system refuses to look up (too long: the
    control API answered a 5,000-character path with a 500, issue 73; a NUL byte) names none."""
    try:
        return Path(source).exists()
    except (OSError, ValueError):
        return False


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


def superseded(document: Document, kept: Collection[str], preferred: Mapping[str, Completeness]) -> bool:
    """Whether this form of a record is not the one a streaming read keeps: a form of it was kept already
    (``kept``: the ids so far), or ``preferred`` (:func:`most_complete_forms`) knows a more complete one.
    The most complete form wins, the first of equally complete ones, so a re-run keeps the same form."""
    best = preferred.get(document.doc_id)
    return document.doc_id in kept or (best is not None and completeness(document) < best)


def unique_documents(documents: Iterable[Document]) -> list[Document]:
    """One document per id, in first-appearance order: the most complete form (:func:`completeness`),
    the first of equally complete ones."""
    best: dict[str, Document] = {}
    for document in documents:
        kept = best.get(document.doc_id)
        if kept is None or completeness(document) > completeness(kept):
            best[document.doc_id] = document
    return list(best.values())
