"""Words of a text as the project's query-side analysis reads them: maximal runs of letters and digits
("atoms"), case-folded and lightly stemmed, with their character offsets; and where a sequence of keys
occurs. Shared by clinical intent detection (control_plane/clinical/intents.py) and result highlighting
(control_plane/search/highlights.py), so a cue and a highlight read a query the same way."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Final, NamedTuple

ATOM: Final = re.compile(r"[^\W_]+")
_VOWELS: Final = frozenset("aeiouy")
_UNDOUBLED: Final = frozenset("lsz")

# A small English list: words that say nothing about where an answer lies.
_STOP_WORDS_TEXT: Final = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers him his how i if in into is it its itself me more most my no nor
    not of off on once only or other our out over own same she should so some such than that the their
    them then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your"""
ENGLISH_STOP_WORDS: Final = frozenset(_STOP_WORDS_TEXT.split())


class Atom(NamedTuple):
    """One word of a text: its offsets and its comparison key (case-folded, stemmed)."""

    start: int
    end: int
    key: str


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


def fold(word: str) -> str:
    return word.casefold()


def atoms(text: str, stem: Callable[[str], str] = light_stem) -> list[Atom]:
    """The text's words with their offsets and keys."""
    return [Atom(m.start(), m.end(), stem(fold(m.group()))) for m in ATOM.finditer(text)]


def find_sequence(
    text_atoms: Sequence[Atom],
    keys: Sequence[str],
    max_gap: int | None = None,
    positions: Mapping[str, list[int]] | None = None,
) -> list[tuple[int, int]]:
    """Character spans where ``keys`` occur as consecutive atoms; ``max_gap`` bounds the characters
    between two atoms of a match (None: any run of non-word characters). ``positions`` (from
    :func:`atom_positions`) saves the pass over the text when one text is searched for many sequences."""
    return find(text_atoms, atom_positions(text_atoms) if positions is None else positions, keys, max_gap)


def atom_positions(text_atoms: Sequence[Atom]) -> dict[str, list[int]]:
    """Where each key occurs, so a sequence is only tried where its first key is (one pass per text)."""
    positions: dict[str, list[int]] = {}
    for index, atom in enumerate(text_atoms):
        positions.setdefault(atom.key, []).append(index)
    return positions


def find(
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
