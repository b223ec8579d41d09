"""Pull dose, frequency and route mentions out of intervention text for a ``dosage`` facet.

Registry intervention and arm descriptions carry the regimen as prose ("Dupilumab 300 mg SC qw"); the
facet lets the query side filter or boost on the literal dose without re-parsing text.
"""

from __future__ import annotations

import re

_NUMBER = r"\d+(?:[.,]\d+)?"
_DOSE = re.compile(
    rf"(?<![\w.]){_NUMBER}(?:\s*(?:-|\u2013|to)\s*{_NUMBER})?\s*"
    r"(?:mg|mcg|µg|μg|ug|g|kg|ml|mL|IU|units?|mmol|mEq|Gy|cGy|mCi|MBq|%)"
    r"(?:\s*/\s*(?:kg|m2|m²|day|d|dose|week|wk|h|hr|hour|min))*(?![A-Za-z])",
    re.IGNORECASE,
)
_FREQUENCY = re.compile(
    r"\b(?:q\.?d|b\.?i\.?d|t\.?i\.?d|q\.?i\.?d|qw|q\d+w|q\d+h|once|twice|three times)\b"
    r"(?:\s+(?:a|per)\s+\w+|\s+daily)?"
    r"|\b(?:daily|weekly|monthly|every\s+\d+\s+(?:hours?|days?|weeks?|months?))\b",
    re.IGNORECASE,
)
_ROUTE = re.compile(
    r"\b(?:oral(?:ly)?|PO|intravenous(?:ly)?|IV|subcutaneous(?:ly)?|SC|SQ|intramuscular(?:ly)?|IM"
    r"|topical(?:ly)?|inhaled|intranasal(?:ly)?|intrathecal(?:ly)?|transdermal)\b"
)


def _unique(matches: list[str]) -> list[str]:
    return list(dict.fromkeys(" ".join(match.split()) for match in matches))


def dosage_facts(text: str) -> dict[str, list[str]]:
    """``{"doses": [...], "frequencies": [...], "routes": [...]}`` with only the non-empty keys."""
    facts = {
        "doses": _unique(_DOSE.findall(text)),
        "frequencies": _unique([m.group(0) for m in _FREQUENCY.finditer(text)]),
        "routes": _unique(_ROUTE.findall(text)),
    }
    return {name: values for name, values in facts.items() if values}
