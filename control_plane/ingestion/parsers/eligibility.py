"""Split ClinicalTrials.gov eligibility criteria into inclusion and exclusion blocks.

The registry stores criteria as one free-text field. A paragraph opens a new block when it is one of
these headings (checked in this order; ``kind`` is the block's section kind):

1. **criteria heading** -- up to three capitalised qualifier words, an optional ``Non-``, the word
   ``inclusion`` or ``exclusion``, optionally ``criteria``/``criterion``, optionally a scope suffix
   (``for Stage 1``, ``stage 2``, ``(Part A)``), then ``:`` (text after the colon is the block's first
   paragraph) or the end of the paragraph: "- INCLUSION CRITERIA:", "Key Exclusion Criteria:",
   "Transplant Inclusion:", "Inclusion Criteria Stage 1", "Exclusion Criteria for Stage 1".
   ``Non-inclusion`` is exclusion; a mixed "Inclusion/Exclusion" heading is ``eligibility``. Without the
   word ``criteria`` the heading must end with a colon ("Transplant Exclusion:"), so a criterion such as
   "- Subjects with exclusion criteria required by local law" is never a heading.
2. **scoped heading** -- an unbulleted paragraph of at most 25 words that *ends* in a capitalised
   "Inclusion criteria" / "Exclusion criteria" after a scope naming a sub-study ("Eligibility criteria
   for the secondary randomisation to ... Inclusion criteria"). The scope stays attached to the
   following blocks (it becomes a heading level of their title path) until another scoped heading.
3. **PDQ heading** -- the National Cancer Institute's PDQ layout "DISEASE CHARACTERISTICS:",
   "PATIENT CHARACTERISTICS:", "PRIOR CONCURRENT THERAPY:". Every item under them is a requirement the
   participant must meet (negative ones included: "No prior chemotherapy"), so each is an
   ``inclusion`` block.
4. **generic heading** -- "Eligibility criteria:", "Criteria:": a plain ``eligibility`` block.
5. **lead-in** -- an unbulleted paragraph of at most 30 words ending in ``:`` that names inclusion or
   exclusion ("For inclusion in the study subjects should fulfill the following criteria:", "Patients
   will be excluded if:"). It opens a block only when it changes the current kind (so "Subjects must
   meet all of the following inclusion criteria ...:" inside an inclusion list stays a paragraph),
   and, unlike the headings above, it stays in the text as the block's first paragraph.

Text before the first heading (or all of it, when there is none) is a plain ``eligibility`` block;
when such a leading block (unheaded or under a generic heading) is followed directly by an exclusion
block and no inclusion block came before, it is the inclusion list the registry's template puts first,
and becomes ``inclusion`` ("Inclusion Criteria").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

_BULLET: Final = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)]|[a-zA-Z][.)])\s")
_CRITERIA_HEADING: Final = re.compile(
    r"^[-*•·\s]*(?P<heading>(?:(?-i:[A-Z])[\w'/-]*\s+){0,3}?(?P<non>non[- ]?)?"
    r"(?P<which>inclusion|exclusion)(?P<mixed>\s*/\s*(?:inclusion|exclusion))?(?P<criteria>\s+criteri(?:a|on))?"
    r"(?:\s+(?:for|in|of)(?:\s+[^\s:]+){1,6}|\s+(?:stage|part|cohort|group|phase|step|arm|period)\s+[\w.-]{1,10}"
    r"|\s*\([^)]{1,60}\))?)\s*(?P<colon>:\s*(?P<rest>.*))?$",
    re.IGNORECASE | re.DOTALL,
)
_SCOPED_HEADING: Final = re.compile(
    r"^(?P<scope>.{3,200}?)[\s:;,.-]+(?P<heading>(?-i:Non[- ]?|NON[- ]?)?"
    r"(?-i:(?P<which>Inclusion|Exclusion|INCLUSION|EXCLUSION))\s+criteri(?:a|on))\s*:?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_SCOPE_WORDS: Final = re.compile(
    r"eligib|criteri|randomi[sz]|\bstage|\bpart\b|cohort|\bgroup|\bphase|\bstep\b|\barm\b|sub-?study",
    re.IGNORECASE,
)
_PDQ_HEADING: Final = re.compile(
    r"^[-*•·\s]*(?P<heading>(?:disease|patient)\s+characteristics|prior\s+concurrent\s+therapy)\s*"
    r"(?::\s*(?P<rest>.*))?$",
    re.IGNORECASE | re.DOTALL,
)
_GENERIC_HEADING: Final = re.compile(
    r"^[-*•·\s]*(?:(?:(?:study|entry|participant|patient)\s+)?eligibility(?:\s+criteria)?|criteria)\s*:?\s*$",
    re.IGNORECASE,
)
_LEAD_IN_EXCLUSION: Final = re.compile(
    r"\bexclu(?:sion|ded?|des)\b|\bnon[- ]?inclusion\b|\bineligible\b"
    r"|\bnot\s+(?:be\s+)?(?:included|eligible|enrolled)\b",
    re.IGNORECASE,
)
_LEAD_IN_INCLUSION: Final = re.compile(r"\binclu(?:sion|ded?|des)\b", re.IGNORECASE)
_SCOPED_MAX_WORDS: Final = 25
_LEAD_IN_MAX_WORDS: Final = 30
_NORMAL_HEADINGS: Final = {"inclusion": "Inclusion Criteria", "exclusion": "Exclusion Criteria"}


@dataclass(frozen=True)
class CriteriaBlock:
    kind: str
    """``eligibility``, ``inclusion`` or ``exclusion``."""
    heading: str
    paragraphs: tuple[str, ...]
    scope: str = ""
    """The sub-study a scoped heading named ("Eligibility criteria for the secondary randomisation to
    ..."), or ``""``."""


@dataclass(frozen=True)
class _Heading:
    kind: str
    heading: str
    rest: str = ""
    scope: str | None = None
    """``None``: keep the current scope; a string (possibly empty) replaces it."""
    keeps_text: bool = False
    """A lead-in stays in the text as the block's first paragraph."""
    generic: bool = False


def _tidy(heading: str) -> str:
    heading = " ".join(heading.split()).rstrip(" :")
    return heading.title() if heading.isupper() else heading[:1].upper() + heading[1:]


def _criteria_heading(paragraph: str) -> _Heading | None:
    match = _CRITERIA_HEADING.match(paragraph)
    if not match:
        return None
    rest = (match.group("rest") or "").strip()
    if not match.group("criteria") and not match.group("colon"):
        return None
    if match.group("mixed"):
        kind = "eligibility"
    elif match.group("non"):
        kind = "exclusion" if match.group("which").lower() == "inclusion" else "inclusion"
    else:
        kind = match.group("which").lower()
    return _Heading(kind, _tidy(match.group("heading")), rest)


def _scoped_heading(paragraph: str) -> _Heading | None:
    if _BULLET.match(paragraph) or len(paragraph.split()) > _SCOPED_MAX_WORDS:
        return None
    match = _SCOPED_HEADING.match(paragraph.strip())
    if not match or not _SCOPE_WORDS.search(match.group("scope")):
        return None
    which = match.group("which").lower()
    kind = which if not match.group("heading").lower().startswith("non") else "exclusion"
    return _Heading(kind, _tidy(match.group("heading")), scope=_tidy(match.group("scope")))


def _lead_in(paragraph: str) -> _Heading | None:
    text = paragraph.strip()
    if _BULLET.match(paragraph) or not text.endswith(":") or len(text.split()) > _LEAD_IN_MAX_WORDS:
        return None
    if _LEAD_IN_EXCLUSION.search(text):
        kind = "exclusion"
    elif _LEAD_IN_INCLUSION.search(text):
        kind = "inclusion"
    else:
        return None
    return _Heading(kind, _NORMAL_HEADINGS[kind], keeps_text=True)


def classify_heading(paragraph: str, current_kind: str = "eligibility") -> _Heading | None:
    """The heading ``paragraph`` is (see the module docstring), or ``None`` for a criterion."""
    found = _criteria_heading(paragraph) or _scoped_heading(paragraph)
    if found:
        return found
    pdq = _PDQ_HEADING.match(paragraph)
    if pdq:
        return _Heading("inclusion", _tidy(pdq.group("heading")), (pdq.group("rest") or "").strip())
    if _GENERIC_HEADING.match(paragraph):
        return _Heading("eligibility", "Eligibility Criteria", generic=True)
    lead_in = _lead_in(paragraph)
    if lead_in and lead_in.kind != current_kind:
        return lead_in
    return None


def split_criteria(paragraphs: list[str]) -> list[CriteriaBlock]:
    """Group criteria paragraphs under their inclusion/exclusion headings, in order."""
    blocks: list[CriteriaBlock] = []
    kind, heading, scope, current = "eligibility", "Eligibility Criteria", "", []
    opened = False  # whether the current block was opened by a heading (an empty one is still kept)
    for paragraph in paragraphs:
        found = classify_heading(paragraph, kind)
        if found is None:
            current.append(paragraph)
            continue
        if found.generic and not blocks and not current and not opened:
            continue  # "Eligibility criteria:" at the top just names the leading block
        if current or opened:
            blocks.append(CriteriaBlock(kind, heading, tuple(current), scope))
        kind, heading, opened = found.kind, found.heading, True
        if found.scope is not None:
            scope = found.scope
        current = [paragraph] if found.keeps_text else ([found.rest] if found.rest else [])
    if current or opened:
        blocks.append(CriteriaBlock(kind, heading, tuple(current), scope))
    return _infer_leading_inclusion(blocks)


def _infer_leading_inclusion(blocks: list[CriteriaBlock]) -> list[CriteriaBlock]:
    if len(blocks) < 2:
        return blocks
    leading, following = blocks[0], blocks[1]
    if leading.kind == "eligibility" and leading.paragraphs and following.kind == "exclusion":
        return [replace(leading, kind="inclusion", heading=_NORMAL_HEADINGS["inclusion"]), *blocks[1:]]
    return blocks
