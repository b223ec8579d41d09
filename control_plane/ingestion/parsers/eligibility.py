"""Split ClinicalTrials.gov eligibility criteria into inclusion and exclusion blocks.

The registry stores criteria as one free-text field; most records head the two lists with a line such
as "Inclusion Criteria:", "- INCLUSION CRITERIA:", "Key Exclusion Criteria:" or "Transplant Inclusion:".
Text before the first heading (or all of it, when there is none) stays a plain ``eligibility`` block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(
    r"^[-*•\s]*(?P<heading>(?:[A-Za-z][\w/-]*\s+){0,3}?"
    r"(?P<which>inclusion|exclusion)(?:\s+criteria)?(?:\s+for\s+[^:]{1,60})?)\s*(?::|$)\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True)
class CriteriaBlock:
    kind: str
    """``eligibility``, ``inclusion`` or ``exclusion``."""
    heading: str
    paragraphs: tuple[str, ...]


def _heading(paragraph: str) -> tuple[str, str, str] | None:
    """``(kind, heading, rest)`` when the paragraph opens an inclusion/exclusion list."""
    match = _HEADING.match(paragraph)
    if not match:
        return None
    heading = match.group("heading").strip()
    rest = match.group("rest").strip()
    if "criteria" not in heading.lower() and not paragraph.rstrip().endswith(":") and rest == "":
        return None
    return match.group("which").lower(), heading, rest


def split_criteria(paragraphs: list[str]) -> list[CriteriaBlock]:
    """Group criteria paragraphs under their inclusion/exclusion headings, in order."""
    blocks: list[CriteriaBlock] = []
    kind, heading, current = "eligibility", "Eligibility Criteria", []
    for paragraph in paragraphs:
        found = _heading(paragraph)
        if found is None:
            current.append(paragraph)
            continue
        if current or kind != "eligibility":
            blocks.append(CriteriaBlock(kind, heading, tuple(current)))
        kind, heading, rest = found
        heading = heading.title() if heading.isupper() else heading[:1].upper() + heading[1:]
        current = [rest] if rest else []
    if current or kind != "eligibility":
        blocks.append(CriteriaBlock(kind, heading, tuple(current)))
    return blocks
