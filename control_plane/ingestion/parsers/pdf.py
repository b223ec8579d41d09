"""PDF full text (``.pdf``) with layout provenance: reading order, sections, tables, figure captions, boxes.

Built on pdfplumber (MIT licence; pure Python over pdfminer.six) because it gives every glyph with its
font and box, which is what reading order, heading detection and provenance need. PyMuPDF would be
faster, but it is AGPL-licensed (or commercial), which this Apache-2.0 project cannot ship with.

How a page is read:

* **Lines.** Words (pdfplumber ``extract_words``: a gap of 0.15 font sizes separates words; split where
  font or size changes) are grouped into lines by vertical position; a horizontal gap wider than 1.2
  font sizes splits a line into segments, so the two columns of a page never share a line. Tables
  pdfplumber finds (``find_tables``: ruled tables) are taken out of the prose and kept whole. A bare
  page number in the top or bottom margin is dropped.
* **Columns.** A page is two-column when a vertical gutter in its middle third is crossed by few
  segments while at least three lie wholly on each side (the x-distribution of the lines). The page is
  then read in bands: segments that cross the gutter (a title, a full-width figure) cut the page into
  bands, and each band is read left column top to bottom, then right column.
* **Blocks.** Consecutive lines form a paragraph; a larger vertical gap than the document's usual
  line gap, a change of font size, or an indented first line after a sentence end starts a new one. A
  paragraph goes on across a column or page break unless its last line was short and ended a sentence.
  A line broken with a hyphen before a lower-case letter is joined without the hyphen.
* **Headings and sections.** The body size is the most common glyph size; a short block set larger
  than the body (x 1.15), or wholly in a bold face, is a heading. The largest such text on the first
  page is the title (else the PDF's Title metadata, else the file name). Heading styles are ranked by
  size then boldness: a heading closes every open heading of its rank or lower, which gives the
  ``title_path``; kinds come from the heading text (``section_kinds``), and a nested heading refines
  its parent's kind only as the JATS parser's do (``nested_kind``). Text before the first heading is
  "Front matter".
* **Tables and figures.** A table keeps its rows (cells joined by `` | ``, as everywhere); a paragraph
  starting "Table N" right above or below it is its label and caption. A paragraph starting "Figure N." or
  "Fig. N:" is that figure's caption: a section of kind ``figure`` labelled "Figure N" under the heading
  it appears in, placed after the body sections (as the JATS parser places figures).
* **Layout.** Every typeset line becomes a :class:`~control_plane.ingestion.documents.LineBox` (its
  range in the canonical text, page, box); a table's heading and each row get their boxes too.

A file pdfminer cannot read, an encrypted file that needs a password (one with only an owner password
opens), or one without any text layer (a scan) is a :class:`ParseError` naming the reason, so an ingest
run puts it in the dead-letter file. The document id is the file name without ``.pdf``.
"""

from __future__ import annotations

import html
import itertools
import re
import statistics
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Final

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfplumber.page import Page
from pdfplumber.pdf import PDF
from pdfplumber.table import Table as PlumberTable
from pdfplumber.utils.exceptions import PdfminerException

from control_plane.ingestion.assembly import SectionDraft, TableDraft, assemble_document
from control_plane.ingestion.documents import Document, LineBox, PageBox
from control_plane.ingestion.errors import ParseError, raise_errors
from control_plane.ingestion.section_kinds import classify_heading, nested_kind
from control_plane.ingestion.textnorm import collapse_whitespace

WORD_GAP_SIZES: Final = 0.15
"""Glyphs further apart than this many font sizes are separate words (PDFs often set no space glyphs;
pdfplumber's fixed 3-point default runs the words of tightly justified text together)."""
SEGMENT_GAP_SIZES: Final = 1.2
"""A horizontal gap wider than this many font sizes splits a line (columns, table-like spacing)."""
HEADING_SIZE_RATIO: Final = 1.15
HEADING_MAX_WORDS: Final = 25
BOLD_HEADING_MAX_WORDS: Final = 15
"""A block wholly in bold at body size is a heading only when this short (else it is bold prose)."""
FRONT_MATTER: Final = "Front matter"

_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_FIGURE = re.compile(r"^(?:Figure|Fig\.?)\s*(\d+[A-Za-z]?)\s*[.:|]")
_TABLE = re.compile(r"^Table\s+(\d+[A-Za-z]?|[IVXL]+)\s*[.:|]?\s*")
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?:]['\")\]]?$")
_HYPHENATED = re.compile(r"[^\W\d_]-$")
_MARGIN_SHARE: Final = 0.08


# -- words, segments and reading order --------------------------------------------------------------


@dataclass(frozen=True)
class _Word:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: bool


@dataclass(frozen=True)
class _TableRows:
    """A table read off its page: one text line per non-empty row, each row's box, minimal HTML."""

    lines: tuple[str, ...]
    boxes: tuple[PageBox, ...]
    html: str


@dataclass
class _Item:
    """One thing in a page's reading order: a text segment (one line of one column) or a table. Its
    words are fixed when it is made (text, size and boldness are computed once)."""

    page: int
    x0: float
    top: float
    x1: float
    bottom: float
    words: list[_Word] = field(default_factory=list)
    table: _TableRows | None = None
    column: int = 0
    """0: the page's only column, or crossing the gutter; 1: left; 2: right."""
    band: int = 0
    column_left: float = 0.0
    column_right: float = 0.0

    @cached_property
    def text(self) -> str:
        return collapse_whitespace(" ".join(word.text for word in self.words))

    @property
    def box(self) -> PageBox:
        return PageBox(self.page, self.x0, self.top, self.x1, self.bottom)

    @cached_property
    def size(self) -> float:
        """The size most of the segment's characters are set in."""
        weights: Counter[float] = Counter()
        for word in self.words:
            weights[round(word.size, 1)] += len(word.text)
        return weights.most_common(1)[0][0] if weights else 0.0

    @cached_property
    def bold(self) -> bool:
        letters = [word for word in self.words if any(c.isalnum() for c in word.text)]
        return bool(letters) and all(word.bold for word in letters)


def _words(page: Page, tables: Sequence[PlumberTable]) -> list[_Word]:
    words: list[_Word] = []
    words_of = page.extract_words(
        extra_attrs=["size", "fontname"], keep_blank_chars=False, x_tolerance_ratio=WORD_GAP_SIZES
    )
    for raw in words_of:
        middle_x, middle_y = (raw["x0"] + raw["x1"]) / 2, (raw["top"] + raw["bottom"]) / 2
        if any(_inside(middle_x, middle_y, table.bbox) for table in tables):
            continue
        text = collapse_whitespace(str(raw["text"]))
        if text:
            words.append(
                _Word(
                    text,
                    float(raw["x0"]),
                    float(raw["top"]),
                    float(raw["x1"]),
                    float(raw["bottom"]),
                    float(raw["size"]),
                    bool(_BOLD.search(str(raw["fontname"]))),
                )
            )
    return words


def _inside(x: float, y: float, bbox: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = bbox
    return x0 <= x <= x1 and top <= y <= bottom


def _segments(words: list[_Word], page: int) -> list[_Item]:
    """Words grouped into lines (a word joins the line its vertical middle falls in), each line cut
    into segments at wide horizontal gaps."""
    lines: list[list[_Word]] = []
    spans: list[tuple[float, float]] = []
    for word in sorted(words, key=lambda w: (w.top, w.x0)):
        middle = (word.top + word.bottom) / 2
        for number in range(len(lines) - 1, max(-1, len(lines) - 8), -1):
            top, bottom = spans[number]
            if top <= middle <= bottom:
                lines[number].append(word)
                break
        else:
            lines.append([word])
            spans.append((word.top, word.bottom))
    segments: list[_Item] = []
    for line in lines:
        line.sort(key=lambda w: w.x0)
        current = [line[0]]
        for word in line[1:]:
            if word.x0 - current[-1].x1 > SEGMENT_GAP_SIZES * max(word.size, current[-1].size):
                segments.append(_segment(current, page))
                current = []
            current.append(word)
        segments.append(_segment(current, page))
    return segments


def _segment(words: list[_Word], page: int) -> _Item:
    return _Item(
        page,
        min(w.x0 for w in words),
        min(w.top for w in words),
        max(w.x1 for w in words),
        max(w.bottom for w in words),
        words=list(words),
    )


def _is_page_number(segment: _Item, height: float) -> bool:
    in_margin = segment.bottom < height * _MARGIN_SHARE or segment.top > height * (1 - _MARGIN_SHARE)
    return in_margin and bool(_PAGE_NUMBER.match(segment.text))


def find_gutter(segments: Sequence[_Item], width: float) -> float | None:
    """The x of a two-column page's gutter, or ``None`` for a one-column page.

    Candidates lie in the middle third of the page; the best is the middle of the widest run of
    candidates crossed by the fewest segments. It is a gutter when at least three segments lie wholly on
    each side and at least twice as many lie on the sides as cross it.
    """
    if len(segments) < 6:
        return None
    candidates = [width / 3 + step for step in range(int(width / 3))]
    crossings = [sum(1 for s in segments if s.x0 < x < s.x1) for x in candidates]
    fewest = min(crossings)
    best_run: tuple[int, int] = (0, 0)
    run_start: int | None = None
    for index, count in enumerate([*crossings, fewest + 1]):
        if count == fewest and run_start is None:
            run_start = index
        elif count != fewest and run_start is not None:
            if index - run_start > best_run[1] - best_run[0]:
                best_run = (run_start, index)
            run_start = None
    gutter = candidates[(best_run[0] + best_run[1] - 1) // 2]
    left = sum(1 for s in segments if s.x1 <= gutter)
    right = sum(1 for s in segments if s.x0 >= gutter)
    if left >= 3 and right >= 3 and left + right >= 2 * fewest:
        return gutter
    return None


def reading_order(items: list[_Item], gutter: float | None) -> list[_Item]:
    """Items of one page in reading order: top to bottom on a one-column page; on a two-column page,
    band by band (items crossing the gutter separate bands), left column before right in each band."""
    by_top = sorted(items, key=lambda item: (item.top, item.x0))
    if gutter is None:
        return by_top
    ordered: list[_Item] = []
    band: list[_Item] = []
    band_number = 0

    def flush() -> None:
        nonlocal band_number
        for column in (1, 2):
            ordered.extend(item for item in band if item.column == column)
        band.clear()
        band_number += 1

    for item in by_top:
        if item.x1 <= gutter or item.x0 >= gutter:
            item.column = 1 if item.x1 <= gutter else 2
            item.band = band_number
            band.append(item)
        else:
            flush()
            item.column, item.band = 0, band_number
            ordered.append(item)
            band_number += 1
    flush()
    return ordered


def _set_column_edges(items: list[_Item]) -> None:
    """Each segment learns the left and right edge of its column (for indents and full lines)."""
    edges: dict[tuple[int, int, int], tuple[float, float]] = {}
    for item in items:
        key = (item.page, item.band if item.column == 0 else -1, item.column)
        left, right = edges.get(key, (item.x0, item.x1))
        edges[key] = (min(left, item.x0), max(right, item.x1))
    for item in items:
        key = (item.page, item.band if item.column == 0 else -1, item.column)
        item.column_left, item.column_right = edges[key]


def _rows(table: PlumberTable, page: int) -> _TableRows:
    """The table's rows as text lines (empty rows left out), their boxes, and a minimal HTML rendering."""
    lines: list[str] = []
    boxes: list[PageBox] = []
    html_rows: list[str] = []
    for cells, row in zip(table.extract(), table.rows, strict=False):
        texts = [collapse_whitespace(cell or "") for cell in cells]
        if not any(texts):
            continue
        lines.append(collapse_whitespace(" | ".join(texts)))
        x0, top, x1, bottom = (float(value) for value in row.bbox)
        boxes.append(PageBox(page, x0, top, x1, bottom))
        html_rows.append("<tr>" + "".join(f"<td>{html.escape(text)}</td>" for text in texts) + "</tr>")
    return _TableRows(tuple(lines), tuple(boxes), "<table>" + "".join(html_rows) + "</table>")


def _table_item(page: int, table: PlumberTable) -> _Item:
    x0, top, x1, bottom = (float(value) for value in table.bbox)
    return _Item(page, x0, top, x1, bottom, table=_rows(table, page))


def _tables(page: Page) -> list[PlumberTable]:
    """Ruled tables of at least two rows and two columns (a single ruled box is not a table)."""
    tables = []
    for table in page.find_tables():
        rows = table.extract()
        if len(rows) >= 2 and max(len(row) for row in rows) >= 2:
            tables.append(table)
    return tables


def _page_items(page: Page) -> list[_Item]:
    tables = _tables(page)
    segments = [
        s for s in _segments(_words(page, tables), page.page_number) if not _is_page_number(s, page.height)
    ]
    gutter = find_gutter(segments, float(page.width))
    table_items = [_table_item(page.page_number, table) for table in tables]
    ordered = reading_order([*segments, *table_items], gutter)
    _set_column_edges([item for item in ordered if item.table is None])
    return ordered


# -- blocks: paragraphs, headings, tables -----------------------------------------------------------


@dataclass
class _Block:
    lines: list[_Item] = field(default_factory=list)
    table: _Item | None = None

    @property
    def text(self) -> str:
        return _join_lines(self.lines)[0]

    @property
    def size(self) -> float:
        return self.lines[0].size if self.lines else 0.0

    @property
    def bold(self) -> bool:
        return all(line.bold for line in self.lines)

    @property
    def words(self) -> int:
        return sum(len(line.words) for line in self.lines)

    @property
    def page(self) -> int:
        return (self.table or self.lines[0]).page

    def boxes(self) -> tuple[PageBox, ...]:
        return tuple(line.box for line in self.lines)


def _join_lines(lines: Sequence[_Item]) -> tuple[str, tuple[LineBox, ...]]:
    """A paragraph's text (lines joined by a space; a hyphen that breaks a word before a lower-case
    letter is dropped) and each line's range in it."""
    text = ""
    boxes: list[LineBox] = []
    for line in lines:
        piece = line.text
        if text and _HYPHENATED.search(text) and piece[:1].islower():
            text = text[:-1]
            last = boxes[-1]
            boxes[-1] = LineBox(last.start, len(text), last.page, last.x0, last.top, last.x1, last.bottom)
        elif text:
            text += " "
        boxes.append(LineBox.of(len(text), len(text) + len(piece), line.box))
        text += piece
    return text, tuple(boxes)


@dataclass(frozen=True)
class _Style:
    body_size: float
    line_gap: float

    def heading_candidate(self, line: _Item) -> bool:
        return line.size >= self.body_size * HEADING_SIZE_RATIO or line.bold

    def is_heading(self, block: _Block) -> bool:
        if block.table is not None or not block.lines or not any(c.isalpha() for c in block.text):
            return False
        if not all(self.heading_candidate(line) for line in block.lines):
            return False
        larger = block.size >= self.body_size * HEADING_SIZE_RATIO
        return block.words <= (HEADING_MAX_WORDS if larger else BOLD_HEADING_MAX_WORDS)

    def new_block(self, previous: _Item, line: _Item) -> bool:
        """Whether ``line`` starts a block rather than continuing the one ``previous`` ends."""
        if self.heading_candidate(previous) != self.heading_candidate(line):
            return True
        if abs(previous.size - line.size) > 0.5 or previous.bold != line.bold:
            return True
        sentence_ended = bool(_SENTENCE_END.search(previous.text))
        same_column = (previous.page, previous.column, previous.band) == (line.page, line.column, line.band)
        if not same_column:
            # A column or page break: the paragraph goes on unless it visibly ended.
            short = previous.x1 < previous.column_right - 0.1 * (previous.column_right - previous.column_left)
            return sentence_ended and short
        gap = line.top - previous.bottom
        if gap < -0.5 * line.size:  # above the previous line: not the same flow
            return True
        allowed = self.line_gap + 0.35 * self.body_size
        if self.heading_candidate(line):  # a large heading's lines are set further apart
            allowed = max(allowed, 0.6 * line.size)
        if gap > allowed:
            return True
        indented = line.x0 > line.column_left + 0.8 * line.size
        return indented and sentence_ended and previous.x0 <= previous.column_left + 0.8 * previous.size


def _style(items: Sequence[_Item]) -> _Style:
    sizes: Counter[float] = Counter()
    for item in items:
        for word in item.words:
            sizes[round(word.size, 1)] += len(word.text)
    body_size = sizes.most_common(1)[0][0] if sizes else 10.0
    gaps = [
        line.top - previous.bottom
        for previous, line in itertools.pairwise(items)
        if previous.table is None
        and line.table is None
        and (previous.page, previous.column, previous.band) == (line.page, line.column, line.band)
        and abs(previous.size - body_size) < 0.5
        and abs(line.size - body_size) < 0.5
        and 0 <= line.top - previous.bottom < 2 * body_size
    ]
    return _Style(body_size, statistics.median(gaps) if gaps else 0.2 * body_size)


def _blocks(items: list[_Item], style: _Style) -> list[_Block]:
    blocks: list[_Block] = []
    current: _Block | None = None
    for item in items:
        if item.table is not None:
            blocks.append(_Block(table=item))
            current = None
            continue
        if current is None or style.new_block(current.lines[-1], item):
            current = _Block()
            blocks.append(current)
        current.lines.append(item)
    return blocks


# -- sections -----------------------------------------------------------------------------------------


@dataclass
class _OpenSection:
    label: str
    kind: str
    title_path: tuple[str, ...]
    paragraphs: list[str] = field(default_factory=list)
    lines: list[tuple[LineBox, ...]] = field(default_factory=list)

    def add(self, block: _Block) -> None:
        text, boxes = _join_lines(block.lines)
        self.paragraphs.append(text)
        self.lines.append(boxes)

    def draft(self) -> SectionDraft:
        return SectionDraft(
            self.label, self.kind, self.title_path, tuple(self.paragraphs), paragraph_lines=tuple(self.lines)
        )


def _near(caption: _Block, table: _Item, style: _Style) -> bool:
    box = caption.lines[0].box
    for line in caption.lines[1:]:
        box = box.union(line.box)
    if caption.page != table.page or box.x1 < table.x0 or box.x0 > table.x1:
        return False
    distance = max(table.top - box.bottom, box.top - table.bottom, 0.0)
    return distance <= 3 * style.body_size


@dataclass
class _Reader:
    style: _Style
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

    def heading(self, block: _Block) -> None:
        rank = self.ranks[(block.size, block.bold)]
        while self.headings and self.headings[-1][0] >= rank:
            self.headings.pop()
        text = block.text
        kind = nested_kind(classify_heading(text), self.kind)
        self.headings.append((rank, text, kind))
        self.sections.append(_OpenSection(text, kind, self.path))

    def table(self, rows: _TableRows, caption: _Block | None) -> None:
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

    def figure(self, block: _Block, number: str) -> None:
        label = f"Figure {number}"
        text, boxes = _join_lines(block.lines)
        self.figures.append(
            SectionDraft(label, "figure", (*self.path, label), (text,), paragraph_lines=(boxes,))
        )


def _table_captions(blocks: list[_Block], style: _Style) -> dict[int, int]:
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


def _title(
    blocks: list[_Block], style: _Style, metadata: dict[str, Any], path: Path
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


def _read(blocks: list[_Block], style: _Style, title_index: int | None) -> _Reader:
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


def _caption_like(block: _Block) -> bool:
    return bool(_FIGURE.match(block.text) or _TABLE.match(block.text))


# -- the document ---------------------------------------------------------------------------------------

_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;)]")


def pdf_document(pdf: PDF, path: Path) -> Document:
    """The document of an opened PDF; :class:`ParseError` when it has no text layer."""
    items: list[_Item] = []
    for page in pdf.pages:
        items.extend(_page_items(page))
        page.close()  # the items hold all that is needed: free the page's parsed objects
    if not any(item.words for item in items):
        raise ParseError(path, "file", "no text layer (a scanned PDF needs OCR first)")
    style = _style(items)
    blocks = _blocks(items, style)
    title, title_index = _title(blocks, style, pdf.metadata, path)
    reader = _read(blocks, style, title_index)
    first_page_text = " ".join(b.text for b in blocks if b.lines and b.page == 1)
    doi = _DOI.search(first_page_text)
    return assemble_document(
        doc_id=path.stem,
        title=title,
        source="pdf",
        doc_type="article",
        url=None,
        publication_date=None,
        sections=[*(section.draft() for section in reader.sections), *reader.figures],
        tables=reader.tables,
        metadata={
            "file": path.name,
            "pages": len(pdf.pages),
            "pdf_title": collapse_whitespace(str(pdf.metadata.get("Title") or "")) or None,
        },
        identifiers=(doi.group(0) if doi else None,),
    )


def _open_error(path: Path, error: Exception) -> ParseError:
    cause = error.args[0] if isinstance(error, PdfminerException) and error.args else error
    if isinstance(cause, PDFPasswordIncorrect):
        return ParseError(path, "file", "encrypted: a password is needed to open it")
    if isinstance(cause, PDFEncryptionError):
        return ParseError(path, "file", f"encrypted with an unsupported scheme: {cause}")
    detail = str(cause) or type(cause).__name__
    return ParseError(path, "file", f"not a readable PDF: {type(cause).__name__}: {detail}")


def iter_pdf(path: Path | str) -> Iterator[Document | ParseError]:
    """The document in one ``.pdf`` file, or a :class:`ParseError` saying why it cannot be read."""
    path = Path(path)
    try:
        with pdfplumber.open(path) as pdf:
            document = pdf_document(pdf, path)
    except ParseError as error:
        yield error
        return
    except OSError as error:
        yield ParseError(path, "file", f"unreadable: {error}")
        return
    except Exception as error:  # pdfminer raises many unrelated types on damaged files
        yield _open_error(path, error)
        return
    yield document


def parse_pdf(path: Path | str) -> Iterator[Document]:
    """Strict :func:`iter_pdf`: raises the :class:`ParseError` instead of yielding it."""
    return raise_errors(iter_pdf(path))
