"""Map free-text headings ("Materials and Methods", "PATIENTS AND METHODS:", "sec-type=methods") to kinds.

Ordered rules, first match wins; "results and discussion" is results because results come first. A
heading no rule recognises is ``other`` and callers let a nested section inherit its parent's kind.
"""

from __future__ import annotations

import re

_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind)
    for pattern, kind in (
        (r"adverse (event|reaction|effect)|side[- ]effect|toxicit|safety", "adverse_events"),
        (r"eligib|inclusion|exclusion", "eligibility"),
        (r"\bdos(e|es|age|ing)\b|regimen", "dosage"),
        (r"outcome|end[- ]?point", "outcomes"),
        (r"^\W*abstract", "abstract"),
        (r"intro", "introduction"),
        (r"background|rationale|objective|\baims?\b|purpose|hypothes", "background"),
        (r"result|finding", "results"),
        (
            r"method|material|procedure|experiment|design|setting|participant|patient|subject|statistic",
            "methods",
        ),
        (r"discussion|limitation|interpretation|comment", "discussion"),
        (r"conclu|implication|significance", "conclusions"),
        (r"summary|synopsis|overview", "summary"),
        (r"intervention|treatment arm|\barms?\b", "interventions"),
        (r"description", "description"),
    )
)


def classify_heading(heading: str) -> str:
    """The normalised kind of a heading or JATS ``sec-type`` value; ``other`` when nothing matches."""
    for pattern, kind in _RULES:
        if pattern.search(heading):
            return kind
    return "other"
