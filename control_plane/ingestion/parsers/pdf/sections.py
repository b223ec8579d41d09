"""Sections: blocks read in order into the title, heading sections, table drafts and figure captions.

The last stage (the package docstring's "Headings and sections" and "Tables and figures"): it ranks
heading styles, keeps the open headings (the ``title_path``), pairs each table with its "Table N" caption
and makes "Figure N." paragraphs figure sections, producing the drafts the document is assembled from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from control_plane.ingestion.assembly import SectionDraft, TableDraft
from control_plane.ingestion.documents import LineBox, PageBox
from control_plane.ingestion.parsers.pdf.blocks import HEADING_SIZE_RATIO, Block, Style, join_lines
from control_plane.ingestion.parsers.pdf.page import Item, TableRows
from control_plane.ingestion.section_kinds import classify_heading, nested_kind
from control_plane.ingestion.textnorm import collapse_whitespace

FRONT_MATTER: Final = "Front matter"

_FIGURE = re.compile(r"^(?:Figure|Fig\.?)\s*(\d+[A-Za-z]?)\s*[.:|]")
_TABLE = re.compile(r"^Table\s+(\d+[A-Za-z]?|[IVXL]+)\s*[.:|]?\s*")


@dataclass
class _OpenSection:
    label: str
    kind: str
    title_path: tuple[str, ...]
    paragraphs: list[str] = field(default_factory=list)
    lines: list[tuple[LineBox, ...]] = field(default_factory=list)

    def add(self, block: Block) -> None:
        text, boxes = join_lines(block.lines)
        self.paragraphs.append(text)
        self.lines.append(boxes)

    def draft(self) -> SectionDraft:
        return SectionDraft(
            self.label, self.kind, self.title_path, tuple(self.paragraphs), paragraph_lines=tuple(self.lines)
        )


def _near(caption: Block, table: Item, style: Style) -> bool:
    box = caption.lines[0].box
    for line in caption.lines[1:]:
        box = box.union(line.box)
    if caption.page != table.page or box.x1 < table.x0 or box.x0 > table.x1:
        return False
    distance = max(table.top - box.bottom, box.top - table.bottom, 0.0)
    return distance <= 3 * style.body_size


@dataclass
class _Reader:
    style: Style
    sections: list[_OpenSection] = field(default_factory=list)
    figures: list[SectionDraft] = field(default_factory=list)
    tables: list[TableDraft] = field(default_factory=list)
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    """The open headings: rank, text, kind."""
    ranks: dict[tuple[float, bool], int] = field(default_factory=dict)

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(text for _, text, _ in self.headings)

    @property
    def kind(self) -> str:
        return self.headings[-1][2] if self.headings else "other"

    def current(self) -> _OpenSection:
        if not self.sections or self.sections[-1].title_path != self.path:
            label = self.path[-1] if self.path else FRONT_MATTER
            self.sections.append(_OpenSection(label, self.kind, self.path or (FRONT_MATTER,)))
        return self.sections[-1]

    def heading(self, block: Block) -> None:
        rank = self.ranks[(block.size, block.bold)]
        while self.headings and self.headings[-1][0] >= rank:
            self.headings.pop()
        text = block.text
        kind = nested_kind(classify_heading(text), self.kind)
        self.headings.append((rank, text, kind))
        self.sections.append(_OpenSection(text, kind, self.path))

    def table(self, rows: TableRows, caption: Block | None) -> None:
        if not rows.lines:
            return
        label, text = "Table", ""
        heading_boxes: tuple[PageBox, ...] = ()
        if caption is not None:
            match = _TABLE.match(caption.text)
            assert match is not None
            label, text = f"Table {match.group(1)}", caption.text[match.end() :]
            heading_boxes = caption.boxes()
        kind = "table" if self.kind == "other" else self.kind
        self.tables.append(
            TableDraft(
                label,
                kind,
                text,
                rows.html,
                rows.lines,
                (*self.path, label),
                heading_boxes=heading_boxes,
                row_boxes=tuple((box,) for box in rows.boxes),
            )
        )

    def figure(self, block: Block, number: str) -> None:
        label = f"Figure {number}"
        text, boxes = join_lines(block.lines)
        self.figures.append(
            SectionDraft(label, "figure", (*self.path, label), (text,), paragraph_lines=(boxes,))
        )


def _table_captions(blocks: list[Block], style: Style) -> dict[int, int]:
    """Table block index -> the index of its caption block (a "Table N" paragraph next to it)."""
    captions: dict[int, int] = {}
    taken: set[int] = set()
    for index, block in enumerate(blocks):
        if block.table is None:
            continue
        for other in (index - 1, index + 1, index - 2, index + 2):
            if not 0 <= other < len(blocks) or other in taken:
                continue
            candidate = blocks[other]
            if (
                candidate.table is None
                and _TABLE.match(candidate.text)
                and _near(candidate, block.table, style)
            ):
                captions[index] = other
                taken.add(other)
                break
    return captions


def find_title(
    blocks: list[Block], style: Style, metadata: dict[str, Any], path: Path
) -> tuple[str, int | None]:
    """The title text and the index of its block (None when it comes from metadata or the file name)."""
    first_page = [
        (index, block) for index, block in enumerate(blocks) if block.lines and block.page == blocks[0].page
    ]
    if first_page:
        largest = max(block.size for _, block in first_page)
        if largest >= style.body_size * HEADING_SIZE_RATIO:
            index, block = next((i, b) for i, b in first_page if b.size == largest)
            if style.is_heading(block):
                return block.text, index
    meta_title = collapse_whitespace(str(metadata.get("Title") or ""))
    return meta_title or path.stem, None


def read(blocks: list[Block], style: Style, title_index: int | None) -> _Reader:
    reader = _Reader(style)
    headings = [
        b for i, b in enumerate(blocks) if i != title_index and style.is_heading(b) and not _caption_like(b)
    ]
    styles = sorted({(b.size, b.bold) for b in headings}, key=lambda s: (-s[0], not s[1]))
    reader.ranks = {key: rank for rank, key in enumerate(styles)}
    captions = _table_captions(blocks, style)
    caption_blocks = set(captions.values())
    for index, block in enumerate(blocks):
        if index == title_index or index in caption_blocks:
            continue
        if block.table is not None:
            caption = captions.get(index)
            assert block.table.table is not None
            reader.table(block.table.table, blocks[caption] if caption is not None else None)
            continue
        figure = _FIGURE.match(block.text)
        if figure:
            reader.figure(block, figure.group(1))
        elif style.is_heading(block) and not _caption_like(block):
            reader.heading(block)
        else:
            reader.current().add(block)
    return reader


def _caption_like(block: Block) -> bool:
    return bool(_FIGURE.match(block.text) or _TABLE.match(block.text))
