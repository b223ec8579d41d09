"""Plan chunk spans inside one region of text (a section) under a token budget.

Everything here works on character offsets into the document's canonical text and cuts only between
:class:`~control_plane.ingestion.tokens.Segment` boundaries, so a span's token count is the sum of its
segments' counts and ``text[start:end]`` is the chunk text verbatim.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from itertools import accumulate

from control_plane.ingestion.sentences import sentence_spans
from control_plane.ingestion.tokens import Segment, TokenCounter

Span = tuple[int, int]
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    tokens: int


class SegmentIndex:
    """Token segments of one region, in document coordinates, with O(log n) token counts for sub-spans."""

    def __init__(self, counter: TokenCounter, text: str, start: int, end: int) -> None:
        self.segments = [
            Segment(start + s.start, start + s.end, s.tokens) for s in counter.segments(text[start:end])
        ]
        self._starts = [s.start for s in self.segments]
        self._ends = [s.end for s in self.segments]
        self._prefix = [0, *accumulate(s.tokens for s in self.segments)]

    def _range(self, start: int, end: int) -> tuple[int, int]:
        return bisect.bisect_left(self._starts, start), bisect.bisect_right(self._ends, end)

    def tokens(self, start: int, end: int) -> int:
        """Tokens of the segments lying inside ``[start, end)``."""
        first, stop = self._range(start, end)
        return self._prefix[stop] - self._prefix[first] if stop > first else 0

    def within(self, start: int, end: int) -> list[Segment]:
        first, stop = self._range(start, end)
        return self.segments[first:stop]


def paragraph_spans(text: str, start: int, end: int) -> list[Span]:
    """Blank-line separated paragraphs of ``text[start:end]``, whitespace-trimmed."""
    spans: list[Span] = []
    cursor = start
    for blank in [*_BLANK_LINE.finditer(text, start, end), None]:
        stop = blank.start() if blank else end
        left, right = cursor, stop
        while left < right and text[left].isspace():
            left += 1
        while right > left and text[right - 1].isspace():
            right -= 1
        if left < right:
            spans.append((left, right))
        cursor = blank.end() if blank else end
    return spans


def _split_by_segments(index: SegmentIndex, start: int, end: int, budget: int) -> list[_Unit]:
    """Cut an over-long sentence at word boundaries; a lone word over budget becomes its own unit."""
    units: list[_Unit] = []
    for segment in index.within(start, end):
        last = units[-1] if units else None
        if last is not None and last.tokens + segment.tokens <= budget:
            units[-1] = _Unit(last.start, segment.end, last.tokens + segment.tokens)
        else:
            units.append(_Unit(segment.start, segment.end, segment.tokens))
    return units


def _greedy_pack(units: list[_Unit], budget: int) -> list[Span]:
    """Pack consecutive units into spans of at most ``budget`` tokens (the fewest spans possible)."""
    spans: list[Span] = []
    current: _Unit | None = None
    for unit in units:
        if current is not None and current.tokens + unit.tokens <= budget:
            current = _Unit(current.start, unit.end, current.tokens + unit.tokens)
            continue
        if current is not None:
            spans.append((current.start, current.end))
        current = unit
    if current is not None:
        spans.append((current.start, current.end))
    return spans


def _sentence_units(text: str, start: int, end: int, index: SegmentIndex, budget: int) -> list[_Unit]:
    units: list[_Unit] = []
    for sentence_start, sentence_end in sentence_spans(text, start, end):
        tokens = index.tokens(sentence_start, sentence_end)
        if tokens <= budget:
            units.append(_Unit(sentence_start, sentence_end, tokens))
        else:
            units.extend(_split_by_segments(index, sentence_start, sentence_end, budget))
    return units


def pack_sentences(text: str, start: int, end: int, index: SegmentIndex, budget: int) -> list[Span]:
    """Greedily pack whole sentences into spans of at most ``budget`` tokens (long sentences are cut)."""
    return _greedy_pack(_sentence_units(text, start, end, index, budget), budget)


def split_sentences_evenly(text: str, start: int, end: int, index: SegmentIndex, budget: int) -> list[Span]:
    """As few parts as greedy packing, but with the largest part as small as possible.

    Greedy packing fills parts to the brim and leaves a small tail (300 tokens at budget 254 gives
    254 + 46); this binary-searches the smallest cap that still needs no more parts (giving 150 + 150),
    which keeps every part a meaningful passage.
    """
    units = _sentence_units(text, start, end, index, budget)
    if not units:
        return []
    parts = len(_greedy_pack(units, budget))
    low, high = min(max(unit.tokens for unit in units), budget), budget
    while low < high:
        cap = (low + high) // 2
        if len(_greedy_pack(units, cap)) <= parts:
            high = cap
        else:
            low = cap + 1
    return _greedy_pack(units, low)


def sliding_windows(index: SegmentIndex, start: int, end: int, window: int, overlap: int) -> list[Span]:
    """Windows of at most ``window`` tokens, each sharing at most ``overlap`` tokens with the previous one.

    Cuts fall on word boundaries, so the shared part is within one word's tokens of ``overlap``.
    """
    segments = index.within(start, end)
    spans: list[Span] = []
    first = 0
    while first < len(segments):
        stop, total = first, 0
        while stop < len(segments) and (stop == first or total + segments[stop].tokens <= window):
            total += segments[stop].tokens
            stop += 1
        spans.append((segments[first].start, segments[stop - 1].end))
        if stop >= len(segments):
            break
        next_first, shared = stop, 0
        while next_first - 1 > first and shared + segments[next_first - 1].tokens <= overlap:
            shared += segments[next_first - 1].tokens
            next_first -= 1
        first = next_first
    return spans
