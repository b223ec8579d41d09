"""Derive a chunk's ``intent_hint`` so the query side can boost chunks that answer a kind of question.

Section rule table (:func:`intent_hint`), applied in order (first hit wins):

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

A chunk's intent (:func:`chunk_intent`) starts from that, and then:

* **parser intent** -- an intent the parser read from structured data replaces it: a ClinicalTrials.gov
  reported outcome measure whose title is about adverse events, toxicity or safety
  (:func:`is_adverse_event_measure`) is ``ae``, so adverse-event routing reaches the figures in it;
* **dose statement** -- a chunk of a prose kind in :data:`DOSE_STATEMENT_KINDS` (methods, design,
  description, summary, abstract) whose intent is still ``None`` or ``methods`` and whose text states a
  dose (:func:`states_dose`) is ``dosage``;
* **near-empty** -- a chunk that holds (almost) nothing of its own (:func:`is_near_empty`) gets no intent
  at all, whatever the above said: an adverse-event section holding only its time frame must not be
  boosted as if it answered. The chunk also says so in its ``near_empty`` field.

Eligibility chunks are exempt from the last two rules: everything in eligibility stays ``eligibility``.
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
    """Apply the section rule table to a section kind and its heading path (outermost first)."""
    if kind in _SPECIFIC_KINDS:
        return _SPECIFIC_KINDS[kind]
    for heading in reversed(headings):
        for pattern, intent in _HEADING_RULES:
            if pattern.search(heading):
                return intent
    return _GENERIC_KINDS.get(kind)


# -- adverse-event outcome measures ------------------------------------------------------------------

_ADVERSE_EVENT_MEASURE: Final = re.compile(
    r"\badverse\s+(?:drug\s+)?(?:events?|reactions?|effects?)\b|side[- ]effects?|\btoxicit(?:y|ies)\b"
    r"|\bsafety\b|\btolerability\b|\bdose[- ]limiting\b|\binfusion[- ]related\s+reactions?\b"
    r"|\binjection[- ]site\s+reactions?\b|\bharms?\b|(?-i:\b(?:TE|S)?AEs?\b)",
    re.IGNORECASE,
)


def is_adverse_event_measure(title: str) -> bool:
    """Whether a reported outcome measure's *title* is about adverse events, toxicity or safety.

    Adverse events / reactions / effects, side effects, toxicity, safety, tolerability, dose-limiting
    (toxicities), infusion-related or injection-site reactions, harms, and the abbreviations AE, SAE,
    TEAE. The title only: descriptions mention adverse events in passing (withdrawals, imputation).
    "Maximum Tolerated Dose" (a dose) and "Glucose Tolerance" (a test) are not matches.
    """
    return bool(_ADVERSE_EVENT_MEASURE.search(title))


# -- dose statements ---------------------------------------------------------------------------------

DOSE_STATEMENT_KINDS: Final = frozenset({"methods", "design", "description", "summary", "abstract"})
"""Prose kinds whose chunks become ``dosage`` when they state a dose (and have no specific intent)."""

_NUMBER = r"\d+(?:[.,]\d+)*"
_AMOUNT = (
    rf"(?<![\w.<>≤≥⩽⩾]){_NUMBER}(?:\s*(?:±|\+/-)\s*{_NUMBER})?(?:\s*(?:-|\u2013|to)\s*{_NUMBER})?\s*"
    r"(?P<unit>mg|µg|μg|mcg|ug|ng|g|IU|U|units?|mmol|mEq|mCi|MBq|c?Gy|mL|ml)(?![A-Za-z0-9µμ])"
)
_STRONG_UNITS: Final = frozenset(
    {"mg", "µg", "μg", "mcg", "ug", "ng", "iu", "unit", "units", "mmol", "meq", "mci", "mbq", "gy", "cgy"}
)
_AMOUNT_RE: Final = re.compile(_AMOUNT, re.IGNORECASE)
# What may follow an amount: up to two words (a substance name), then the denominator.
_AFTER_AMOUNT = r"(?:\s+[A-Za-z][\w-]*){0,2}?\s*(?:/|\bper\s+)\s*"
_PER_VOLUME: Final = re.compile(_AFTER_AMOUNT + r"(?:m?l|dl|µl|μl|ul|liter|litre)\b", re.IGNORECASE)
_PER_BODY_OR_TIME: Final = re.compile(
    _AFTER_AMOUNT
    + r"(?:(?:pair|animal|patient|subject|person)\s*/\s*)?"
    + r"(?:kg|m2|m²|m\^2|bsa|day|d|dose|week|wk|fraction|fx|h|hr|hour|injection|infusion)\b",
    re.IGNORECASE,
)
_ADMINISTRATION: Final = re.compile(
    r"\b(?:dos(?:e|es|ed|ing|age)|administ\w*|given|receiv\w*|inject\w*|infus\w*|instill\w*|inhal\w*"
    r"|ingest\w*|gavage|fed|treated\s+with|prescri\w*|orally|oral|intravenous\w*|intraperitoneal\w*"
    r"|subcutaneous\w*|intramuscular\w*|topical\w*|tablets?|capsules?|bolus|regimens?)\b"
    r"|(?<![\w.])(?:i\.v|i\.p|s\.c|p\.o|i\.m)\.?(?!\w)",
    re.IGNORECASE,
)
_FREQUENCY: Final = re.compile(
    r"\b(?:q\.?d|b\.?i\.?d|t\.?i\.?d|q\.?i\.?d|q\.?o\.?d|qw|q\d+(?:h|d|w))\b"
    r"|\b(?:once|twice|thrice|(?:two|three|four)\s+times|\d+\s*(?:x|×|times))\s+(?:a\s+|per\s+|each\s+)?"
    r"(?:day|daily|week|weekly|month|monthly)\b|\b(?:daily|nightly|weekly)\b"
    r"|\bevery\s+\d+(?:\s*-\s*\d+)?\s*(?:hours?|h|days?|weeks?)\b",
    re.IGNORECASE,
)
_SENTENCE_END: Final = re.compile(r"(?<=[.!?;])\s+(?=[(\[A-Z0-9])|\n+")


_COMPARISON: Final = re.compile(r"[<>≤≥⩽⩾]\s*$")


def _dose_amounts(sentence: str) -> list[tuple[str, str]]:
    """``(unit, text after it)`` of each amount in a dose unit that is neither a concentration (per
    volume) nor a bound ("<750 g", "≥ 11 g/dL")."""
    found = []
    for match in _AMOUNT_RE.finditer(sentence):
        after = sentence[match.end() : match.end() + 60]
        before = sentence[max(0, match.start() - 3) : match.start()]
        if _PER_VOLUME.match(after) or _COMPARISON.search(before):
            continue
        found.append((match.group("unit").lower(), after))
    return found


def states_dose(text: str) -> bool:
    """Whether some sentence of ``text`` states a dose.

    A sentence states a dose when it has an amount in a dose unit (mg, µg, mcg, ng, g, IU, U, units,
    mmol, mEq, mCi, MBq, Gy, cGy, mL) that is not a concentration (an amount per mL/L/dL/µL: reagents,
    media, lab values) nor a bound (after <, >, ≤, ≥: "neonates weighing <750 g") and either

    * the amount is in a mass, activity or radiation unit (not g, U or mL) and is normalised per body
      size or time, possibly after a substance name: "2 mg/kg", "75 mg/m2", "10 mg/day",
      "2.38 µg PBDE-47/pair/day", "2 Gy per fraction"; or
    * the sentence also says how it is given: an administration word (dose, administered, given,
      received, injected, infused, fed, gavage, oral, intravenous, i.v., i.p., s.c., p.o., tablet,
      capsule, regimen ...) or a frequency (q.d., b.i.d., t.i.d., q8h, once/twice/3x daily, daily,
      weekly, every 12 hours).

    So "10 g tryptone, 5 g yeast extract", "100 µg/mL ampicillin", "alcohol intake ≥11.08 g per day" and
    "Standard curves ranged from 0 to 237.6 µg" are not dose statements.
    """
    for sentence in _SENTENCE_END.split(text):
        amounts = _dose_amounts(sentence)
        if not amounts:
            continue
        if any(unit in _STRONG_UNITS and _PER_BODY_OR_TIME.match(after) for unit, after in amounts):
            return True
        if _ADMINISTRATION.search(sentence) or _FREQUENCY.search(sentence):
            return True
    return False


# -- near-empty chunks -------------------------------------------------------------------------------

NEAR_EMPTY_MAX_WORDS: Final = 0
"""A chunk with at most this many content words is near-empty (see :func:`is_near_empty`). Zero: a
planned outcome named in one or two words ("Overall survival.") or an intervention list of drug names
("Drug: Olaparib. Drug: Placebo.") is a complete answer, so any word of its own counts."""
NEAR_EMPTY_EXEMPT_KINDS: Final = frozenset({"eligibility", "inclusion", "exclusion", "conditions", "title"})
"""Kinds where a single short line is a complete answer ("Conditions: Malaria.", "- contraindications
for MRI"), so shortness says nothing; only demographic fields that restrict nobody make one near-empty."""
# Layout the registry parser writes around a section's content, not content of its own.
_SCAFFOLDING: Final = re.compile(
    r"(?:Time frame|Frequency threshold for other adverse events|Other names|Arms|Interventions):[^\n]*"
)
_LABEL: Final = re.compile(r"(?<![\w-])[A-Z][a-z]+(?: [a-z]+){0,3}: ")
_PLACEHOLDER: Final = re.compile(r"(?<![\w/])(?:N/?A|None|Not specified|Not applicable)(?![\w/])")
_WORD: Final = re.compile(r"[^\W_]+")
_CELL_SEPARATOR: Final = re.compile(r"\s*\|\s*")  # row lines are whitespace-collapsed: "a | | b"


# The registry's demographic fields when they restrict nobody: "Sex: All. Minimum age: N/A. Maximum
# age: N/A." (an age, a sex or healthy volunteers accepted does restrict, and stays content).
_UNRESTRICTED_DEMOGRAPHICS: Final = re.compile(
    r"Sex: All\.?|(?:Minimum|Maximum) age: N/?A\.?|Accepts healthy volunteers: No\.?"
    r"|Sampling method:[^\n.]*\.?"
)


def _only_unrestricted_demographics(text: str) -> bool:
    """A criteria chunk holding nothing but demographic fields that restrict nobody (the registry's
    "Sex: All. Minimum age: N/A. Maximum age: N/A." split off its criteria): near-empty, whatever its
    kind; a chunk with any such field plus one word of its own is not."""
    return bool(_UNRESTRICTED_DEMOGRAPHICS.search(text)) and not _WORD.search(
        _UNRESTRICTED_DEMOGRAPHICS.sub(" ", text)
    )


def content_words(text: str) -> int:
    """Words of ``text`` once scaffolding ("Time frame: ...", "Frequency threshold for other adverse
    events: ...", and the cross-references "Arms: ...", "Interventions: ...", "Other names: ..." up to
    the end of their line), field labels ("Study type: ") and placeholders (N/A, None, Not specified)
    are removed."""
    text = _SCAFFOLDING.sub(" ", text)
    text = _LABEL.sub(" ", text)
    text = _PLACEHOLDER.sub(" ", text)
    return len(_WORD.findall(text))


def table_has_values(row_lines: Sequence[str]) -> bool:
    """Whether a table has a data row (after the header row) with a value beyond its label column; a
    single-column data row counts as a value."""
    for line in row_lines[1:]:
        cells = [cell.strip() for cell in _CELL_SEPARATOR.split(line)]
        if len(cells) == 1 and cells[0]:
            return True
        if any(cells[1:]):
            return True
    return False


def is_near_empty(kind: str, text: str, table_rows: Sequence[str] | None = None) -> bool:
    """Whether a chunk holds (almost) nothing of its own.

    A table (``table_rows`` given) is near-empty when no data row has a value (an outcome measure the
    registry lists without results: caption and header only). Any other chunk is near-empty when it has
    at most :data:`NEAR_EMPTY_MAX_WORDS` :func:`content_words`: an adverse-event overview holding only
    "Time frame: 6 months" and "Frequency threshold for other adverse events: 0%", "Study type: N/A.",
    a "Time frame: 90 days." or "Arms: Arm #2 - placebo." tail that sentence packing split off its
    section. Kinds in :data:`NEAR_EMPTY_EXEMPT_KINDS` are never near-empty.
    """
    if kind in NEAR_EMPTY_EXEMPT_KINDS:
        return _only_unrestricted_demographics(text)
    if table_rows is not None:
        return not table_has_values(table_rows)
    return content_words(text) <= NEAR_EMPTY_MAX_WORDS


def chunk_intent(
    kind: str,
    headings: Sequence[str],
    text: str,
    *,
    parser_intent: IntentHint | None = None,
    near_empty: bool = False,
) -> IntentHint | None:
    """A chunk's intent: the section rule table, then the parser's intent, dose statements and the
    near-empty rule (see the module docstring)."""
    if near_empty:
        return None
    intent = parser_intent or intent_hint(kind, headings)
    if kind in DOSE_STATEMENT_KINDS and intent in (None, "methods") and states_dose(text):
        return "dosage"
    return intent
