"""Build a :class:`Document` and its canonical text from parser drafts.

Parsers describe *what* a document contains (drafts); this module alone decides *how* it is laid out as
text, so the offsets contract (``document.text[span.start:span.end]``) is enforced in one place.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from control_plane.clinical.labels import IntentHint
from control_plane.ingestion.documents import Document, LineBox, PageBox, Section, SourceName, Table
from control_plane.ingestion.textnorm import collapse_whitespace

BLOCK_SEPARATOR = "\n\n"
TABLE_ROW_SEPARATOR = "\n"


@dataclass(frozen=True)
class SectionDraft:
    """A section before layout: heading, kind, and its paragraphs (already one line each).

    ``paragraph_lines`` (page layouts only): for each paragraph, its typeset lines with offsets into
    that paragraph; paragraphs with lines must already be whitespace-collapsed (offsets stay exact).
    """

    label: str
    kind: str
    title_path: tuple[str, ...]
    paragraphs: tuple[str, ...]
    facet_json: str | None = None
    paragraph_lines: tuple[tuple[LineBox, ...], ...] = ()


@dataclass(frozen=True)
class TableDraft:
    """A table before layout; ``row_lines`` has exactly one entry per source row.

    Page layouts only: ``heading_boxes`` are where the label and caption are typeset, ``row_boxes`` one
    tuple of boxes per row line (each box covers its whole rendered line).
    """

    label: str
    kind: str
    caption: str
    html: str
    row_lines: tuple[str, ...]
    title_path: tuple[str, ...] = ()
    facet_json: str | None = None
    intent_hint: IntentHint | None = None
    heading_boxes: tuple[PageBox, ...] = ()
    row_boxes: tuple[tuple[PageBox, ...], ...] = ()


def prose(sections: Iterable[SectionDraft]) -> str:
    """The sections' paragraphs as one text (what a parser reads statements from before assembly)."""
    return " ".join(paragraph for section in sections for paragraph in section.paragraphs)


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


def _paragraph_layout(draft: SectionDraft) -> list[tuple[str, tuple[LineBox, ...]]]:
    """The draft's non-empty paragraphs, collapsed, each with its lines (none without a page layout)."""
    if draft.paragraph_lines and len(draft.paragraph_lines) != len(draft.paragraphs):
        raise ValueError(f"section {draft.label!r}: paragraph_lines must give one entry per paragraph")
    kept: list[tuple[str, tuple[LineBox, ...]]] = []
    for number, paragraph in enumerate(draft.paragraphs):
        lines = draft.paragraph_lines[number] if draft.paragraph_lines else ()
        collapsed = collapse_whitespace(paragraph)
        if lines and collapsed != paragraph:
            raise ValueError(
                f"section {draft.label!r}: a paragraph with line boxes must be collapsed already"
            )
        if collapsed:
            kept.append((collapsed, lines))
    return kept


def _whole_lines(start: int, lines: Iterable[str], boxes: Iterable[tuple[PageBox, ...]]) -> list[LineBox]:
    """Boxes of consecutive text lines starting at ``start`` (each line's range is the whole line)."""
    placed: list[LineBox] = []
    for line, line_boxes in zip(lines, boxes, strict=True):
        placed.extend(LineBox.of(start, start + len(line), box) for box in line_boxes)
        start += len(line) + len(TABLE_ROW_SEPARATOR)
    return placed


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
    Line boxes of the drafts (page layouts) are moved to document offsets and kept in text order.
    Identifiers are whitespace-collapsed; empty ones and repeats are dropped, first occurrence kept.
    """
    layout = _Layout()
    title = collapse_whitespace(title)
    if title:
        layout.append(title)
    placed_sections: list[Section] = []
    line_boxes: list[LineBox] = []
    for draft in sections:
        kept = _paragraph_layout(draft)
        if not kept:
            continue
        start, end = layout.append(BLOCK_SEPARATOR.join(paragraph for paragraph, _ in kept))
        offset = start
        for paragraph, lines in kept:
            line_boxes.extend(line.shifted(offset) for line in lines)
            offset += len(paragraph) + len(BLOCK_SEPARATOR)
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
        if table.heading_boxes or table.row_boxes:
            if len(table.row_boxes) != len(row_lines):
                raise ValueError(f"table {table.label!r}: row_boxes must give one entry per row line")
            line_boxes.extend(
                _whole_lines(start, (heading, *row_lines), (table.heading_boxes, *table.row_boxes))
            )
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
        layout=tuple(sorted(line_boxes, key=lambda line: (line.start, line.end))),
    )
