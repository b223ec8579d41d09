"""The name a study goes by, read from an article's title and its trial registration statement: trials
are searched by their acronym ("IN-REC-SUR-E randomisation and analysis", "GRECCAR 2 trial results"),
and registries give it for a trial (ctgov's acronym is among its identifiers) but MEDLINE and PMC give
it only in the article's own words.

Two title forms name a study, and only these (so a disease's or a method's abbreviation is not taken
for one): the Lancet form, the acronym in brackets just before a colon followed by the design ("...
syndrome (IN-REC-SUR-E): a randomised, unblinded, controlled trial"; "coronavirus disease 2019
(COVID-19): a systematic review" names no study), and "the NAME [n] [design words] trial|study" ("5-year
results of the GRECCAR 2 randomised trial", "analysis of the IAC study", "an analysis from the GLOBAL
LEADERS trial": a name of up to three words, the words after its first in capitals). A name must have
two capitals or more, so "the present study" names nothing. Over the 50,788 titles of the two MEDLINE
files in ../shared/datasets, 88 names are read, each a study's, trial's or cohort's (IN-REC-SUR-E,
GRECCAR 2, GLOBAL LEADERS, PERU MIGRANT, APOLLO, DESTINY-CRC01, the REGARDS and ABCD cohorts, ...), and
no disease's or method's abbreviation: "(COVID-19): a systematic review", "(ARDS): novel mechanistic
considerations", "a structural MRI study" name nothing.

A registration statement names the study the way its registry entry does, the acronym in brackets after
the registered title and before the registry's address ("A Controlled Study of Parent Training in the
Treatment of ADHD in Young Children (D'SNAPP); http://clinicaltrial.gov/; NCT01684644"):
:func:`registered_study_names` reads that form from an abstract.
"""

from __future__ import annotations

import re
from typing import Final

_DESIGN_WORDS: Final = (
    r"(?:(?:randomi[sz]ed|controlled|clinical|cluster|pilot|feasibility|pragmatic|multicent(?:re|er)"
    r"|prospective|crossover|parallel[- ]group|non-?inferiority"
    r"|(?:un|single[- ]|double[- ]|triple[- ])?blind(?:ed)?"
    r"|open[- ]label|placebo[- ]controlled|phase\s+(?:[1-4]|i{1,3}v?|iv)|,)\s*)*"
)
_BRACKETED_BEFORE_DESIGN: Final = re.compile(
    r"\(([^()\s]{2,40})\)\s*:\s*(?:an?|the)\s+" + _DESIGN_WORDS + r"(?:trial|study)\b", re.IGNORECASE
)
# after the name's first word, up to two more in capitals ("GLOBAL LEADERS"), case-sensitively
_MORE_NAME_WORDS: Final = r"(?:\s+(?-i:[A-Z][A-Z0-9'’-]+)){0,2}"
_THE_NAME_TRIAL: Final = re.compile(
    r"\bthe\s+([^\s()]{2,40}"
    + _MORE_NAME_WORDS
    + r"(?:\s+\d{1,3})?)\s+"
    + _DESIGN_WORDS
    + r"(?:trial|study)\b",
    re.IGNORECASE,
)
_BRACKETED_BEFORE_REGISTRY: Final = re.compile(
    r"\(([^()\s]{2,40})\)\s*[;:,]?\s*(?:https?://)?(?:www\.)?clinicaltrials?\.gov\b", re.IGNORECASE
)


def _is_name(candidate: str) -> bool:
    word = candidate.split()[0]
    return sum(ch.isupper() for ch in word) >= 2


def study_names(title: str | None) -> tuple[str, ...]:
    """The names the title gives its study, as written, first occurrence first, without repeats."""
    if not title:
        return ()
    found = [m.group(1) for m in _BRACKETED_BEFORE_DESIGN.finditer(title)]
    found += [m.group(1) for m in _THE_NAME_TRIAL.finditer(title)]
    return tuple(dict.fromkeys(name.strip(".,;") for name in found if _is_name(name)))


def registered_study_names(text: str | None) -> tuple[str, ...]:
    """The names a trial registration statement in ``text`` gives its study (the bracketed name just
    before the ClinicalTrials.gov address), as written, without repeats."""
    if not text:
        return ()
    found = (m.group(1) for m in _BRACKETED_BEFORE_REGISTRY.finditer(text))
    return tuple(dict.fromkeys(name for name in found if _is_name(name)))
