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


# Kinds a nested heading may override its parent with ("Results > Adverse events" is adverse_events) ...
SPECIFIC_KINDS = frozenset({"adverse_events", "eligibility", "dosage", "outcomes"})
# ... and parents whose children classify on their own (an abstract's "Methods" part is methods).
OPEN_PARENT_KINDS = frozenset({"other", "abstract", "summary"})


def nested_kind(own: str, parent_kind: str) -> str:
    """The kind of a section whose own heading classifies as ``own`` inside a ``parent_kind`` section
    (``other`` at the top level): it refines its parent only into a specific kind, unless the parent is
    open ("Results > Robustness of the hypothesis" stays results)."""
    if parent_kind in OPEN_PARENT_KINDS or own in SPECIFIC_KINDS:
        return own if own != "other" else parent_kind
    return parent_kind


def classify_heading(heading: str) -> str:
    """The normalised kind of a heading or JATS ``sec-type`` value; ``other`` when nothing matches."""
    for pattern, kind in _RULES:
        if pattern.search(heading):
            return kind
    return "other"
