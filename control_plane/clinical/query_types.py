"""Query types: a search that names no weights gets its type's (the fusion settings choose them,
config/fusion_settings.py `weighted_weights`).

Rule, applied in order (first hit wins):

1. ``exact_term``: the query holds an identifier — an NCT id (NCT01234567), a PMID/PMCID
   ("PMID 12345678", "PMC1234567"), a DOI, a gene-like symbol (an upper-case token mixing letters and
   digits: BRCA1, TP53, HER2), a drug code (MK-3475, ABT-199: 1-4 capitals, a hyphen, 3+ digits) or a
   quoted phrase — or it is 1-3 words long;
2. ``complex``: several facets — two or more clinical intents (``tabular`` does not count), a
   comparison (versus, vs, compared with/to), two or more of the joiners and/or/with, or 12 words
   or more;
3. ``paraphrase``: anything else, a natural-language question or statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from control_plane.clinical.intents import TABULAR_INTENT, DetectedIntent


class QueryType(StrEnum):
    EXACT_TERM = "exact_term"
    PARAPHRASE = "paraphrase"
    COMPLEX = "complex"


MAX_SHORT_WORDS: Final = 3
MIN_LONG_WORDS: Final = 12
MIN_JOINERS: Final = 2
MIN_INTENTS: Final = 2

_IDENTIFIERS: Final = (
    re.compile(r"\bNCT\d{8}\b", re.IGNORECASE),
    re.compile(r"\bPMID\s*:?\s*\d{1,9}\b", re.IGNORECASE),
    re.compile(r"\bPMC\d{4,9}\b", re.IGNORECASE),
    re.compile(r"\b10\.\d{4,9}/\S+"),
    re.compile(r"\b(?=[A-Z0-9]*\d)[A-Z][A-Z0-9]+\b"),
    re.compile(r"\b[A-Z]{1,4}-\d{3,}[A-Z]?\b"),
    re.compile(r"[\"“”][^\"“”]*[^\s\"“”][^\"“”]*[\"“”]"),
)
_COMPARISON: Final = re.compile(r"\b(?:versus|vs\.?|compared\s+(?:with|to))(?=\W|$)", re.IGNORECASE)
_JOINER: Final = re.compile(r"\b(?:and|or|with)\b", re.IGNORECASE)
_WORD: Final = re.compile(r"\S*[^\W_]\S*")


def word_count(query: str) -> int:
    """Whitespace-separated tokens holding a letter or digit ("COVID-19" is one word)."""
    return len(_WORD.findall(query))


def has_identifier(query: str) -> bool:
    return any(pattern.search(query) for pattern in _IDENTIFIERS)


def classify_query(query: str, intents: Sequence[DetectedIntent | str] | None = None) -> QueryType:
    """The query's type by the module's rule; ``intents`` (detected intents or their names) feed the
    two-intents test of ``complex`` and may be omitted."""
    words = word_count(query)
    if has_identifier(query) or words <= MAX_SHORT_WORDS:
        return QueryType.EXACT_TERM
    names = {item if isinstance(item, str) else item.name for item in intents or ()}
    names.discard(TABULAR_INTENT)
    if (
        len(names) >= MIN_INTENTS
        or _COMPARISON.search(query)
        or len(_JOINER.findall(query)) >= MIN_JOINERS
        or words >= MIN_LONG_WORDS
    ):
        return QueryType.COMPLEX
    return QueryType.PARAPHRASE
