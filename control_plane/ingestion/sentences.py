"""Rule-based sentence spans, tuned for biomedical prose.

A boundary is sentence-final punctuation (optionally followed by closing quotes or brackets), then
whitespace, then something that can open a sentence (capital, digit, opening bracket or quote). It is
vetoed after common abbreviations ("e.g.", "et al.", "Fig.", "vs.") and single-letter initials. Line
breaks are always boundaries (list items, table rows). No model download, deterministic, fast.
"""

from __future__ import annotations

import re
from itertools import pairwise

_ABBREVIATIONS = frozenset(
    (
        *("al", "approx", "ca", "cf", "co", "dept", "dr", "e.g", "eg", "eq", "eqs", "et", "etc"),
        *("fig", "figs", "i.e", "ie", "inc", "jr", "ltd", "max", "min", "mr", "mrs", "ms", "no", "nos"),
        *("p", "pp", "prof", "ref", "refs", "resp", "sr", "st", "suppl", "vol", "vs", "viz"),
    )
)
_CLOSERS = ")\\]\"'\u201d\u2019"  # a regex character class body: the bracket is escaped
_OPENERS = "(\\[\"'\u201c\u2018"
_BOUNDARY = re.compile(f"[.!?][{_CLOSERS}]*(?=\\s+[{_OPENERS}A-Z0-9])")
_LINE_BREAK = re.compile(r"\n+")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def _is_abbreviation(text: str, period_at: int) -> bool:
    if text[period_at] != ".":
        return False
    match = _WORD_BEFORE.search(text[max(0, period_at - 24) : period_at])
    if not match:
        return False
    word = match.group(1).lower().rstrip(".")
    return word in _ABBREVIATIONS or (len(word) == 1 and match.group(1).isupper())


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence ``(start, end)`` spans of ``text[start:end]`` in ``text`` coordinates, whitespace-trimmed."""
    end = len(text) if end is None else end
    cuts = [start]
    for line_break in _LINE_BREAK.finditer(text, start, end):
        cuts.append(line_break.start())
    for boundary in _BOUNDARY.finditer(text, start, end):
        if not _is_abbreviation(text, boundary.start()):
            cuts.append(boundary.end())
    cuts.append(end)
    cuts.sort()
    spans = (_trimmed(text, left, right) for left, right in pairwise(cuts))
    return [span for span in spans if span is not None]
