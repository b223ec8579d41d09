"""Whether a question has anything to search for: a character a reader would see.

``str.strip()`` removes whitespace only, so a question of zero-width spaces, byte-order marks or joiners
passed it and was answered with arbitrary hits (issue 73). Every path that takes a question (/v1/search,
the clinical pipelines' rewrite, the inference service's query encodings and rerank query) asks here.
"""

from __future__ import annotations

import unicodedata
from typing import Final

_INVISIBLE_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Controls, format characters (zero-width space, joiners, BOM, bidi marks), surrogates, private use,
unassigned, separators, and combining marks standing alone."""
_BLANK_LETTERS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters Unicode files as letters or symbols that render as nothing: the Hangul fillers and the
blank Braille pattern."""


def is_visible(character: str) -> bool:
    """Whether one character shows as something."""
    return (
        not character.isspace()
        and character not in _BLANK_LETTERS
        and unicodedata.category(character) not in _INVISIBLE_CATEGORIES
    )


def has_visible_character(text: str) -> bool:
    """Whether ``text`` holds at least one character a reader would see."""
    return any(is_visible(character) for character in text)
