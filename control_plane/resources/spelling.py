"""British and American spellings folded by the chunk analyzer: the maintained list
(``spelling_variants.tsv``) as the synonym rules the index template's ``biomedical_spelling`` filter
takes, so a question in one spelling finds the chunks written in the other on the lexical component too."""

from __future__ import annotations

from pathlib import Path
from typing import Final

VARIANTS_FILE: Final = Path(__file__).with_name("spelling_variants.tsv")


def read_variants(text: str) -> tuple[tuple[str, str], ...]:
    """(british, american) pairs of a variants list: tab-separated, ``#`` comments and blank lines
    skipped; a malformed line, a pair of equal words or a word listed twice is a ValueError naming it."""
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split("\t")
        if len(words) != 2 or not all(w and w == w.strip().lower() and w.isalpha() for w in words):
            raise ValueError(f"line {number}: expected british<TAB>american, lower-case letters: {line!r}")
        british, american = words
        if british == american:
            raise ValueError(f"line {number}: {british!r} is the same word in both spellings")
        for word in words:
            if word in seen:
                raise ValueError(f"line {number}: {word!r} is listed twice")
            seen.add(word)
        pairs.append((british, american))
    return tuple(pairs)


def synonym_rules(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    """The synonym filter's rules: each British spelling replaced by the American one."""
    return [f"{british} => {american}" for british, american in pairs]


def spelling_rules(path: Path = VARIANTS_FILE) -> list[str]:
    """The rules of the maintained list."""
    return synonym_rules(read_variants(path.read_text(encoding="utf-8")))
