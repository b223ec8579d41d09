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
from functools import lru_cache
from itertools import pairwise
from typing import Final, NamedTuple

_ATOM: Final = re.compile(r"[^\W_]+")
_QUERY_TOKEN: Final = re.compile(r"[^\W_]+(?:[-‐‑–/'’][^\W_]+|[.,][0-9]+)*")
_QUOTED: Final = re.compile(r"[\"“”]([^\"“”]+)[\"“”]")
_VOWELS: Final = frozenset("aeiouy")
_UNDOUBLED: Final = frozenset("lsz")
MAX_COMPOUND_GAP: Final = 1

# A small English list: words that say nothing about where an answer lies.
_STOP_WORDS_TEXT: Final = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself me more most my no nor
    not of off on once only or other our out over own same she should so some such than that the their
    them then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your"""
ENGLISH_STOP_WORDS: Final = frozenset(_STOP_WORDS_TEXT.split())


@dataclass(frozen=True)
class Span:
    """Characters ``start:end`` of the highlighted text; ``text`` is that slice."""

    start: int
    end: int
    text: str


class Atom(NamedTuple):
    """One word of a text: its offsets and its comparison key (case-folded, stemmed)."""

    start: int
    end: int
    key: str


@dataclass(frozen=True)
class Analyzer:
    stop_words: frozenset[str]
    stem: Callable[[str], str]


@lru_cache(maxsize=1 << 16)
def light_stem(word: str) -> str:
    """Strip plural and -ing/-ed endings and a final e, so inflections share a key ("dosing", "dose",
    "doses", "dosed" -> "dos"). Short words and words with digits stay as they are; the rule is a
    compromise tuned for queries, not a Porter stemmer."""
    if len(word) <= 3 or any(ch.isdigit() for ch in word):
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and not word.endswith("eed") and _stemmable(stem):
            word = _undouble(stem)
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _stemmable(stem: str) -> bool:
    return len(stem) >= 3 and any(ch in _VOWELS for ch in stem)


def _undouble(stem: str) -> str:
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in _UNDOUBLED and stem[-1] not in _VOWELS:
        return stem[:-1]
    return stem


def _fold(word: str) -> str:
    return word.casefold()


ANALYZERS: Final[dict[str, Analyzer]] = {
    "simple": Analyzer(stop_words=ENGLISH_STOP_WORDS, stem=light_stem),
    "exact": Analyzer(stop_words=frozenset(), stem=lambda word: word),
}


def atoms(text: str, stem: Callable[[str], str] = light_stem) -> list[Atom]:
    """The text's words with their offsets and keys."""
    return [Atom(m.start(), m.end(), stem(_fold(m.group()))) for m in _ATOM.finditer(text)]


def find_sequence(
    text_atoms: Sequence[Atom],
    keys: Sequence[str],
    max_gap: int | None = None,
    positions: Mapping[str, list[int]] | None = None,
) -> list[tuple[int, int]]:
    """Character spans where ``keys`` occur as consecutive atoms; ``max_gap`` bounds the characters
    between two atoms of a match (None: any run of non-word characters). ``positions`` (from
    :func:`atom_positions`) saves the pass over the text when one text is searched for many sequences."""
    return _find(text_atoms, atom_positions(text_atoms) if positions is None else positions, keys, max_gap)


def atom_positions(text_atoms: Sequence[Atom]) -> dict[str, list[int]]:
    """Where each key occurs, so a sequence is only tried where its first key is (one pass per text)."""
    positions: dict[str, list[int]] = {}
    for index, atom in enumerate(text_atoms):
        positions.setdefault(atom.key, []).append(index)
    return positions


def _find(
    text_atoms: Sequence[Atom], positions: Mapping[str, list[int]], keys: Sequence[str], max_gap: int | None
) -> list[tuple[int, int]]:
    n = len(keys)
    found: list[tuple[int, int]] = []
    if n == 0:
        return found
    for i in positions.get(keys[0], ()):
        if i + n > len(text_atoms):
            break
        window = text_atoms[i : i + n]
        if any(atom.key != key for atom, key in zip(window, keys, strict=True)):
            continue
        if max_gap is not None and any(nxt.start - prev.end > max_gap for prev, nxt in pairwise(window)):
            continue
        found.append((window[0].start, window[-1].end))
    return found


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
        matches = _find(text_atoms, positions, keys, None)
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
        words = _ATOM.findall(token)
        if all(_fold(word) in analyzer.stop_words for word in words):
            continue
        keys = [analyzer.stem(_fold(word)) for word in words]
        found.extend(_find(text_atoms, positions, keys, MAX_COMPOUND_GAP))
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
