"""The one normalised document shape every parser produces and every chunker consumes.

A document owns a single CANONICAL TEXT (``Document.text``); sections and tables are character spans into
it, so a chunk's offsets always point back into one string and ``text[start:end]`` is the chunk verbatim.

Canonical text layout (built by :func:`control_plane.ingestion.assembly.assemble_document`):

* the title, then every section body, then every table, joined by one blank line (``"\\n\\n"``);
* a section body is its paragraphs joined by a blank line; each paragraph is whitespace-collapsed to one line;
* section headings are NOT in the text: they live in ``Section.title_path`` (and so in chunk metadata);
* a table is ``"{label}: {caption}"`` (or whichever of the two exists) followed by one line per row, cells
  joined by ``" | "``, rows joined by ``"\\n"``.

A document read from a page layout (PDF) also carries ``layout``: one :class:`LineBox` per typeset line,
the character range of the canonical text that line became and where it sits on its page, so each chunk
can say which pages and boxes its text came from (:mod:`control_plane.ingestion.layout`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from control_plane.clinical.labels import IntentHint

SourceName = Literal["pmc", "ctgov", "medline", "beir", "pdf"]

SECTION_KINDS: frozenset[str] = frozenset(
    {
        "title",
        "abstract",
        "summary",
        "introduction",
        "background",
        "methods",
        "design",
        "results",
        "discussion",
        "conclusions",
        "description",
        "conditions",
        "eligibility",
        "inclusion",
        "exclusion",
        "interventions",
        "dosage",
        "outcomes",
        "outcome_results",
        "adverse_events",
        "figure",
        "table",
        "other",
    }
)
"""Normalised section kinds; parsers map free-text headings onto these (see ``section_kinds.py``)."""


@dataclass(frozen=True)
class Section:
    """A run of prose in the canonical text.

    ``label`` is the heading as written, ``kind`` its normalised class, ``title_path`` the headings from the
    outermost section down to this one. ``facet_json`` carries structured facts (e.g. outcome measures).
    """

    label: str
    kind: str
    title_path: tuple[str, ...]
    start: int
    end: int
    facet_json: str | None = None


@dataclass(frozen=True)
class Table:
    """A table kept whole: caption, the source HTML, and one text line per row (cells joined by `` | ``)."""

    label: str
    kind: str
    caption: str
    html: str
    row_lines: tuple[str, ...]
    title_path: tuple[str, ...]
    start: int
    end: int
    facet_json: str | None = None
    intent_hint: IntentHint | None = None
    """An intent the parser read from structured data (a registry outcome measure about adverse events
    is ``ae``); ``None`` leaves it to the rule table (:mod:`control_plane.clinical.labels`)."""


@dataclass(frozen=True)
class PageBox:
    """A rectangle on a page: ``page`` counts from 1; coordinates are PDF points (1/72 inch) from the
    page's top-left corner, as pdfplumber reports them (``top``/``bottom`` grow downwards)."""

    page: int
    x0: float
    top: float
    x1: float
    bottom: float

    def union(self, other: PageBox) -> PageBox:
        """The smallest box holding both (same page)."""
        return PageBox(
            self.page,
            min(self.x0, other.x0),
            min(self.top, other.top),
            max(self.x1, other.x1),
            max(self.bottom, other.bottom),
        )


@dataclass(frozen=True)
class LineBox:
    """One typeset line: the canonical text ``[start, end)`` it became, and its box on its page."""

    start: int
    end: int
    page: int
    x0: float
    top: float
    x1: float
    bottom: float

    @classmethod
    def of(cls, start: int, end: int, box: PageBox) -> LineBox:
        return cls(start, end, box.page, box.x0, box.top, box.x1, box.bottom)

    @property
    def box(self) -> PageBox:
        return PageBox(self.page, self.x0, self.top, self.x1, self.bottom)

    def shifted(self, offset: int) -> LineBox:
        return LineBox(
            self.start + offset, self.end + offset, self.page, self.x0, self.top, self.x1, self.bottom
        )


@dataclass(frozen=True)
class Document:
    """One normalised record from any source; ``text`` is the canonical text the spans index into.

    ``identifiers`` are the record's own identifiers as written (a trial's NCT id, its NCT aliases, org
    study id, secondary ids and acronym; an article's PMCID, PMID and DOI): every chunk carries them so
    an identifier query finds the record whatever its text says.
    """

    doc_id: str
    title: str
    source: SourceName
    doc_type: str
    url: str | None
    publication_date: dt.date | None
    sections: tuple[Section, ...]
    tables: tuple[Table, ...]
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    identifiers: tuple[str, ...] = ()
    layout: tuple[LineBox, ...] = ()
    """Page layout of the text, line by line in text order; ranges never partly overlap (a table heading
    typeset on several lines has one box per line, each with the heading's range). Empty for sources
    without pages (everything but PDF)."""

    def span_text(self, span: Section | Table) -> str:
        """The canonical text a section or table covers."""
        return self.text[span.start : span.end]
