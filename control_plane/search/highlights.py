"""Highlight offsets: where a query's terms occur in a result's text, as character spans.

The query is analysed like the text: words are maximal runs of letters/digits ("atoms"), compared
case-insensitively after a light suffix stemmer (so "trials" finds "trial", "dosing" finds "dose" and
"doses"). A compound query token (joined by hyphens, slashes or apostrophes, or a number with a dot or
comma: "COVID-19", "25-hydroxyvitamin", "mg/kg", "3.5") must match as a whole sequence of atoms
separated by at most one character; a plain query word also matches inside a hyphenated text token
("hydroxyvitamin" in "25-hydroxyvitamin"). A quoted phrase is highlighted as one span when present,
otherwise its words are highlighted one by one. Stop words of unquoted queries are ignored.
Overlapping matches, and matches separated only by whitespace, merge into one span, so "adverse
events" is one highlight.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from control_plane.words.atoms import (
    ATOM,
    ENGLISH_STOP_WORDS,
    Atom,
    atom_positions,
    atoms,
    find,
    fold,
    light_stem,
)

_QUERY_TOKEN: Final = re.compile(r"[^\W_]+(?:[-‐‑–/'’][^\W_]+|[.,][0-9]+)*")
_QUOTED: Final = re.compile(r"[\"“”]([^\"“”]+)[\"“”]")
MAX_COMPOUND_GAP: Final = 1


@dataclass(frozen=True)
class Span:
    """Characters ``start:end`` of the highlighted text; ``text`` is that slice."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Analyzer:
    stop_words: frozenset[str]
    stem: Callable[[str], str]


ANALYZERS: Final[dict[str, Analyzer]] = {
    "simple": Analyzer(stop_words=ENGLISH_STOP_WORDS, stem=light_stem),
    "exact": Analyzer(stop_words=frozenset(), stem=lambda word: word),
}


def highlight_spans(text: str, query: str, analyzer: str = "simple") -> list[Span]:
    """Sorted, non-overlapping spans of ``text`` matching the query (see the module docstring);
    ``analyzer`` is "simple" (stop words, light stemming) or "exact" (case-folding only)."""
    if analyzer not in ANALYZERS:
        raise ValueError(f"unknown highlight analyzer {analyzer!r}; expected one of {sorted(ANALYZERS)}")
    chosen = ANALYZERS[analyzer]
    text_atoms = atoms(text, chosen.stem)
    positions = atom_positions(text_atoms)
    raw: list[tuple[int, int]] = []
    for phrase in _QUOTED.findall(query):
        keys = [atom.key for atom in atoms(phrase, chosen.stem)]
        matches = find(text_atoms, positions, keys, None)
        raw.extend(matches)
        if not matches:
            raw.extend(_term_matches(text_atoms, positions, phrase, chosen))
    raw.extend(_term_matches(text_atoms, positions, _QUOTED.sub(" ", query), chosen))
    return [Span(start, end, text[start:end]) for start, end in _merge(sorted(raw), text)]


def _term_matches(
    text_atoms: Sequence[Atom], positions: Mapping[str, list[int]], query: str, analyzer: Analyzer
) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    for token in _QUERY_TOKEN.findall(query):
        words = ATOM.findall(token)
        if all(fold(word) in analyzer.stop_words for word in words):
            continue
        keys = [analyzer.stem(fold(word)) for word in words]
        found.extend(find(text_atoms, positions, keys, MAX_COMPOUND_GAP))
    return found


def _merge(spans: Sequence[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Merge sorted spans that overlap, touch, or are separated by whitespace only."""
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and (start <= merged[-1][1] or text[merged[-1][1] : start].isspace()):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
