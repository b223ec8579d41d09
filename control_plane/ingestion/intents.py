"""Derive a chunk's ``intent_hint`` so the query side can boost chunks that answer a kind of question.

Rule table, applied in order (first hit wins):

1. a *specific* section kind decides on its own:

   ==========================================  ============
   kind                                        intent
   ==========================================  ============
   eligibility, inclusion, exclusion           eligibility
   adverse_events                              ae
   outcomes (planned primary/secondary)        endpoint
   outcome_results (reported outcome data)     outcome
   dosage, interventions                       dosage
   conditions                                  indications
   ==========================================  ============

2. otherwise the headings, deepest first, are matched against keyword patterns
   (adverse/side effect/toxicity -> ae, eligibility/inclusion/exclusion -> eligibility,
   endpoint -> endpoint, outcome -> outcome, dose/dosage/regimen -> dosage, indication -> indications);
3. otherwise a *generic* kind maps: methods, design -> methods; results -> results;
4. otherwise ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Literal

IntentHint = Literal[
    "eligibility", "ae", "outcome", "endpoint", "methods", "dosage", "indications", "results"
]

INTENT_HINTS: Final[tuple[IntentHint, ...]] = (
    "eligibility",
    "ae",
    "outcome",
    "endpoint",
    "methods",
    "dosage",
    "indications",
    "results",
)

_SPECIFIC_KINDS: Final[dict[str, IntentHint]] = {
    "eligibility": "eligibility",
    "inclusion": "eligibility",
    "exclusion": "eligibility",
    "adverse_events": "ae",
    "outcomes": "endpoint",
    "outcome_results": "outcome",
    "dosage": "dosage",
    "interventions": "dosage",
    "conditions": "indications",
}
_HEADING_PATTERNS: Final[tuple[tuple[str, IntentHint], ...]] = (
    (r"adverse|side[- ]effect|toxicit", "ae"),
    (r"eligib|inclusion|exclusion", "eligibility"),
    (r"end[- ]?points?\b", "endpoint"),
    (r"outcome", "outcome"),
    (r"\bdos(e|es|age|ing)\b|regimen", "dosage"),
    (r"indication", "indications"),
)
_HEADING_RULES: Final = tuple(
    (re.compile(pattern, re.IGNORECASE), intent) for pattern, intent in _HEADING_PATTERNS
)
_GENERIC_KINDS: Final[dict[str, IntentHint]] = {
    "methods": "methods",
    "design": "methods",
    "results": "results",
}


def intent_hint(kind: str, headings: Sequence[str]) -> IntentHint | None:
    """Apply the module's rule table to a section kind and its heading path (outermost first)."""
    if kind in _SPECIFIC_KINDS:
        return _SPECIFIC_KINDS[kind]
    for heading in reversed(headings):
        for pattern, intent in _HEADING_RULES:
            if pattern.search(heading):
                return intent
    return _GENERIC_KINDS.get(kind)
