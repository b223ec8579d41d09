"""A question that names a record (an NCT id, PMID, PMCID, DOI, org or secondary id, acronym) is about
that record: every component's sub-query lifts the record's chunks above all others.

Every chunk carries its record's identifiers (``identifiers``; its ``keyword`` sub-field lower-cased).
The question's identifier-like phrases are matched against them *exactly*, so a named id finds its
record however the components rank the rest of the question, and an id that no record carries matches
nothing: the question is then answered as if it named none (no other record takes its place). The lift
is added inside each sub-query, under the request's filters, so it never widens what a request may see;
with min-max fusion the named record's chunks fill the top of every component's list, with RRF its
chunks take every component's first ranks, and routing then finds the asked section inside it (the
record is the only topical one).

What counts as identifier-like (the phrase as typed): a token with a digit and at least 4 characters
(NCT02438137, PMC2994229, CA209-017, A5274, 10.1186/1472-6831-8-11; an all-digit token needs 6 digits, a
PMID's 7 or 8, so "601 patients" names nothing), a token with at least 4 capitals (ARROW, GRECCAR:
typed in capitals, an acronym; "promise" in lower case is a word), and the runs of 2 or 3 such tokens
("GRECCAR 2", "CheckMate 017", "PMID 32043980" as well as "32043980").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

IDENTIFIER_FIELD: Final = "identifiers.keyword"
# Far above any component's own score (BM25 sums stay in the tens, SPLADE dot products in the tens, a
# k-NN score is at most 1), so the named record's chunks outrank every other chunk in each component.
NAMED_RECORD_BOOST: Final = 1000.0
MAX_TERMS: Final = 64  # a pasted list of ids: the first 64 phrases (a terms query stays cheap)

_TOKEN = re.compile(r"\S+")
_EDGE_PUNCTUATION = "\"'()[]{}<>,;:!?."
_PREFIX = re.compile(r"^(?:doi|pmid|pmcid|nct)[:=]", re.IGNORECASE)


def _clean(token: str) -> str:
    token = _PREFIX.sub("", token.strip(_EDGE_PUNCTUATION))
    return token.strip(_EDGE_PUNCTUATION)


def _identifier_like(token: str) -> bool:
    if token.isdigit():
        return len(token) >= 6
    has_digit = any(ch.isdigit() for ch in token)
    if has_digit:
        return len(token) >= 4
    return sum(ch.isupper() for ch in token) >= 4 or (token.isupper() and len(token) >= 4)


def _qualifier(token: str) -> bool:
    """A token that may join an identifier-like one in a phrase ("GRECCAR 2", "CheckMate 017")."""
    return token.isdigit() or any(ch.isupper() for ch in token[1:]) or token.isupper()


def _phrase(run: list[str]) -> bool:
    """A run of qualifiers with a number or an identifier-like token in it, not numbers alone."""
    if not all(run) or not all(map(_qualifier, run)):
        return False
    named = any(_identifier_like(t) or t.isdigit() for t in run)
    return named and not all(t.isdigit() for t in run)


def identifier_phrases(text: str) -> tuple[str, ...]:
    """The question's phrases that may be a record's identifier as written (see the module docstring),
    in the order they appear, without repeats, at most ``MAX_TERMS``."""
    tokens = [_clean(t) for t in _TOKEN.findall(text)]
    phrases: list[str] = []
    for start, token in enumerate(tokens):
        if not token:
            continue
        if _identifier_like(token):
            phrases.append(token)
        for length in (2, 3):
            run = tokens[start : start + length]
            if len(run) == length and _phrase(run):
                phrases.append(" ".join(run))
    return tuple(dict.fromkeys(phrases))[:MAX_TERMS]


def words_besides_identifiers(text: str) -> tuple[str, ...]:
    """The question's words (as cleaned for identifier matching) outside its identifier phrases: what it
    says about the records it names ("methods" in "IN-REC-SUR-E trial methods" with "trial")."""
    named = {token for phrase in identifier_phrases(text) for token in phrase.split()}
    return tuple(token for token in map(_clean, _TOKEN.findall(text)) if token and token not in named)


def named_record_clause(phrases: tuple[str, ...]) -> dict[str, Any]:
    """Chunks whose record carries one of ``phrases`` as an identifier, scored ``NAMED_RECORD_BOOST``."""
    return {"terms": {IDENTIFIER_FIELD: list(phrases), "boost": NAMED_RECORD_BOOST}}


def with_named_records(clause: Mapping[str, Any], phrases: tuple[str, ...]) -> dict[str, Any]:
    """A component's sub-query that also lifts the named records' chunks (itself when none is named).
    The component's own clause keeps its name and its score (what per-component scores report)."""
    if not phrases:
        return dict(clause)
    return {"bool": {"should": [dict(clause), named_record_clause(phrases)]}}


# Identifiers that can only be a record's (a registry number, a PubMed or PMC id, a DOI), as opposed to
# an acronym, which may be a word: naming one that no record carries is an answerable "not here".
_REGISTRY_ID = re.compile(
    r"\b(NCT\d{8}|PMC\d{4,9}|10\.\d{4,9}/[^\s\"'<>]+)|\bPMID[:\s]\s*(\d{5,9})\b", re.IGNORECASE
)


def registry_ids(text: str) -> tuple[str, ...]:
    """The registry ids the question names (NCT, PMCID, DOI, "PMID n"), as typed, without repeats."""
    found = [
        (match.group(1) or match.group(2)).rstrip(_EDGE_PUNCTUATION) for match in _REGISTRY_ID.finditer(text)
    ]
    return tuple(dict.fromkeys(found))


def absent_records(text: str, carried: Iterable[Iterable[str] | None]) -> tuple[str, ...]:
    """The registry ids the question names when no hit carries any of them among its ``identifiers``
    (compared case-insensitively), else (). A named record's chunks fill the top of every component's
    list when it is in the index under the request's filters, so an id no hit carries is in no record
    the request may see: routing must not lift another record's section in its name. When one of
    several named ids is present, that record is what the question is about and routing goes on."""
    named = registry_ids(text)
    if not named:
        return ()
    have = {str(identifier).casefold() for ids in carried for identifier in (ids or ())}
    return () if any(i.casefold() in have for i in named) else named
