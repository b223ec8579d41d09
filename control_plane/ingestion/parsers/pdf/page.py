"""A page's items in reading order: words, segments, page numbers, the gutter, ruled tables.

The first stage of reading a PDF (the package docstring's "Lines" and "Columns"), and the only one that
touches pdfplumber's page: it turns the page into :class:`Item` objects (a segment of one line of one
column, or a whole ruled table) with their column and band, so the later stages work on plain items and
the page can be closed as soon as they are made.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from pdfplumber.page import Page
from pdfplumber.table import Table as PlumberTable

from control_plane.ingestion.documents import PageBox
from control_plane.ingestion.textnorm import collapse_whitespace

WORD_GAP_SIZES: Final = 0.15
"""Glyphs further apart than this many font sizes are separate words (PDFs often set no space glyphs;
pdfplumber's fixed 3-point default runs the words of tightly justified text together)."""
SEGMENT_GAP_SIZES: Final = 1.2
"""A horizontal gap wider than this many font sizes splits a line (columns, table-like spacing)."""

_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE)
_MARGIN_SHARE: Final = 0.08


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
class TableRows:
    """A table read off its page: one text line per non-empty row, each row's box, minimal HTML."""

    lines: tuple[str, ...]
    boxes: tuple[PageBox, ...]
    html: str


@dataclass
class Item:
    """One thing in a page's reading order: a text segment (one line of one column) or a table. Its
    words are fixed when it is made (text, size and boldness are computed once)."""

    page: int
    x0: float
    top: float
    x1: float
    bottom: float
    words: list[_Word] = field(default_factory=list)
    table: TableRows | None = None
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


def _segments(words: list[_Word], page: int) -> list[Item]:
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
    segments: list[Item] = []
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


def _segment(words: list[_Word], page: int) -> Item:
    return Item(
        page,
        min(w.x0 for w in words),
        min(w.top for w in words),
        max(w.x1 for w in words),
        max(w.bottom for w in words),
        words=list(words),
    )


def _is_page_number(segment: Item, height: float) -> bool:
    in_margin = segment.bottom < height * _MARGIN_SHARE or segment.top > height * (1 - _MARGIN_SHARE)
    return in_margin and bool(_PAGE_NUMBER.match(segment.text))


def find_gutter(segments: Sequence[Item], width: float) -> float | None:
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


def reading_order(items: list[Item], gutter: float | None) -> list[Item]:
    """Items of one page in reading order: top to bottom on a one-column page; on a two-column page,
    band by band (items crossing the gutter separate bands), left column before right in each band."""
    by_top = sorted(items, key=lambda item: (item.top, item.x0))
    if gutter is None:
        return by_top
    ordered: list[Item] = []
    band: list[Item] = []
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


def _set_column_edges(items: list[Item]) -> None:
    """Each segment learns the left and right edge of its column (for indents and full lines)."""
    edges: dict[tuple[int, int, int], tuple[float, float]] = {}
    for item in items:
        key = (item.page, item.band if item.column == 0 else -1, item.column)
        left, right = edges.get(key, (item.x0, item.x1))
        edges[key] = (min(left, item.x0), max(right, item.x1))
    for item in items:
        key = (item.page, item.band if item.column == 0 else -1, item.column)
        item.column_left, item.column_right = edges[key]


def _rows(table: PlumberTable, page: int) -> TableRows:
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
    return TableRows(tuple(lines), tuple(boxes), "<table>" + "".join(html_rows) + "</table>")


def _table_item(page: int, table: PlumberTable) -> Item:
    x0, top, x1, bottom = (float(value) for value in table.bbox)
    return Item(page, x0, top, x1, bottom, table=_rows(table, page))


def _tables(page: Page) -> list[PlumberTable]:
    """Ruled tables of at least two rows and two columns (a single ruled box is not a table)."""
    tables = []
    for table in page.find_tables():
        rows = table.extract()
        if len(rows) >= 2 and max(len(row) for row in rows) >= 2:
            tables.append(table)
    return tables


def page_items(page: Page) -> list[Item]:
    tables = _tables(page)
    segments = [
        s for s in _segments(_words(page, tables), page.page_number) if not _is_page_number(s, page.height)
    ]
    gutter = find_gutter(segments, float(page.width))
    table_items = [_table_item(page.page_number, table) for table in tables]
    ordered = reading_order([*segments, *table_items], gutter)
    _set_column_edges([item for item in ordered if item.table is None])
    return ordered
