"""Build a :class:`Document` and its canonical text from parser drafts.

Parsers describe *what* a document contains (drafts); this module alone decides *how* it is laid out as
text, so the offsets contract (``document.text[span.start:span.end]``) is enforced in one place.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from control_plane.ingestion.documents import Document, Section, SourceName, Table
from control_plane.ingestion.intents import IntentHint
from control_plane.ingestion.textnorm import collapse_whitespace

BLOCK_SEPARATOR = "\n\n"
TABLE_ROW_SEPARATOR = "\n"


@dataclass(frozen=True)
class SectionDraft:
    """A section before layout: heading, kind, and its paragraphs (already one line each)."""

    label: str
    kind: str
    title_path: tuple[str, ...]
    paragraphs: tuple[str, ...]
    facet_json: str | None = None


@dataclass(frozen=True)
class TableDraft:
    """A table before layout; ``row_lines`` has exactly one entry per source row."""

    label: str
    kind: str
    caption: str
    html: str
    row_lines: tuple[str, ...]
    title_path: tuple[str, ...] = ()
    facet_json: str | None = None
    intent_hint: IntentHint | None = None


def table_heading(label: str, caption: str) -> str:
    """The first line of a rendered table: ``"Table 1: caption"``, or whichever part exists."""
    label, caption = collapse_whitespace(label), collapse_whitespace(caption)
    if label and caption and label != caption:
        return f"{label}: {caption}"
    return label or caption


@dataclass
class _Layout:
    parts: list[str] = field(default_factory=list)
    length: int = 0

    def append(self, block: str) -> tuple[int, int]:
        if self.parts:
            self.parts.append(BLOCK_SEPARATOR)
            self.length += len(BLOCK_SEPARATOR)
        start = self.length
        self.parts.append(block)
        self.length += len(block)
        return start, self.length


def assemble_document(
    *,
    doc_id: str,
    title: str,
    source: SourceName,
    doc_type: str,
    url: str | None,
    publication_date: dt.date | None,
    sections: Iterable[SectionDraft],
    tables: Iterable[TableDraft] = (),
    metadata: dict[str, Any] | None = None,
    identifiers: Iterable[str | None] = (),
) -> Document:
    """Lay out title, sections and tables as canonical text and record each one's span.

    Empty paragraphs are dropped and sections left with none are omitted, so every span is non-empty.
    Identifiers are whitespace-collapsed; empty ones and repeats are dropped, first occurrence kept.
    """
    layout = _Layout()
    title = collapse_whitespace(title)
    if title:
        layout.append(title)
    placed_sections: list[Section] = []
    for draft in sections:
        paragraphs = [p for p in (collapse_whitespace(p) for p in draft.paragraphs) if p]
        if not paragraphs:
            continue
        start, end = layout.append(BLOCK_SEPARATOR.join(paragraphs))
        placed_sections.append(
            Section(
                label=collapse_whitespace(draft.label),
                kind=draft.kind,
                title_path=tuple(collapse_whitespace(t) for t in draft.title_path),
                start=start,
                end=end,
                facet_json=draft.facet_json,
            )
        )
    placed_tables: list[Table] = []
    for table in tables:
        row_lines = tuple(collapse_whitespace(line) for line in table.row_lines)
        heading = table_heading(table.label, table.caption)
        block = TABLE_ROW_SEPARATOR.join((heading, *row_lines))
        if not block.strip():
            continue
        start, end = layout.append(block)
        placed_tables.append(
            Table(
                label=collapse_whitespace(table.label),
                kind=table.kind,
                caption=collapse_whitespace(table.caption),
                html=table.html,
                row_lines=row_lines,
                title_path=tuple(collapse_whitespace(t) for t in table.title_path),
                start=start,
                end=end,
                facet_json=table.facet_json,
                intent_hint=table.intent_hint,
            )
        )
    return Document(
        doc_id=doc_id,
        title=title,
        source=source,
        doc_type=doc_type,
        url=url,
        publication_date=publication_date,
        sections=tuple(placed_sections),
        tables=tuple(placed_tables),
        text="".join(layout.parts),
        metadata=dict(metadata or {}),
        identifiers=tuple(dict.fromkeys(c for c in (collapse_whitespace(i or "") for i in identifiers) if c)),
    )
