"""Blocks: a document's items grouped into paragraphs (and tables), judged against its body style.

The second stage (the package docstring's "Blocks"): the body style (the most common glyph size and the
usual line gap) decides where a paragraph ends and which short blocks are headings; a paragraph's lines
are joined here, once, with each line's range in the text, so sections and figures share one join.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from control_plane.ingestion.documents import LineBox, PageBox
from control_plane.ingestion.parsers.pdf.page import Item

HEADING_SIZE_RATIO: Final = 1.15
HEADING_MAX_WORDS: Final = 25
BOLD_HEADING_MAX_WORDS: Final = 15
"""A block wholly in bold at body size is a heading only when this short (else it is bold prose)."""

_SENTENCE_END = re.compile(r"[.!?:]['\")\]]?$")
_HYPHENATED = re.compile(r"[^\W\d_]-$")


@dataclass
class Block:
    lines: list[Item] = field(default_factory=list)
    table: Item | None = None

    @property
    def text(self) -> str:
        return join_lines(self.lines)[0]

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


def join_lines(lines: Sequence[Item]) -> tuple[str, tuple[LineBox, ...]]:
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
class Style:
    body_size: float
    line_gap: float

    def heading_candidate(self, line: Item) -> bool:
        return line.size >= self.body_size * HEADING_SIZE_RATIO or line.bold

    def is_heading(self, block: Block) -> bool:
        if block.table is not None or not block.lines or not any(c.isalpha() for c in block.text):
            return False
        if not all(self.heading_candidate(line) for line in block.lines):
            return False
        larger = block.size >= self.body_size * HEADING_SIZE_RATIO
        return block.words <= (HEADING_MAX_WORDS if larger else BOLD_HEADING_MAX_WORDS)

    def new_block(self, previous: Item, line: Item) -> bool:
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


def body_style(items: Sequence[Item]) -> Style:
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
    return Style(body_size, statistics.median(gaps) if gaps else 0.2 * body_size)


def build_blocks(items: list[Item], style: Style) -> list[Block]:
    blocks: list[Block] = []
    current: Block | None = None
    for item in items:
        if item.table is not None:
            blocks.append(Block(table=item))
            current = None
            continue
        if current is None or style.new_block(current.lines[-1], item):
            current = Block()
            blocks.append(current)
        current.lines.append(item)
    return blocks
