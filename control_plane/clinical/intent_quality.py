"""How well intent detection finds what people mean: micro precision and recall of detected intents
against a hand-labelled query sample, overall, per intent and per query form.

The shipped sample, ``config/intent_labels.jsonl``, was written by hand for this project (not generated
from templates, and written before the phrase lists were extended to catch paraphrases). One JSON
object a line: ``{"query": ..., "intents": [...], "form": ...}``. The queries are what clinicians,
researchers and patients type into a biomedical search box about trials, abstracts and full texts.
An intent is labelled when a human asking the query would want the section of a record that intent
targets: eligibility (who may take part), adverse_events (harms, tolerability), dosage (amount,
frequency, route, duration), results (outcomes, whether it worked), methods (how the study was done),
indications (what a treatment is used for), tabular (a count, proportion, rate or table asked for).
Labels say what the person means, not what the detector finds: "safety culture in operating rooms" or
"criteria for diagnosing sepsis" carry no intent although they hold cue words. ``form``: ``exact``
(the intent's usual vocabulary), ``paraphrase`` (other words for it), ``complex`` (two intents in one
question), ``none`` (no clinical intent: topical questions, some with misleading words).

A test set's questions carry the same labels in their metadata (``intents``, ``form``: the clinical sets
name their own forms, "implicit", "named_record", ...): :func:`labelled_questions` reads them, so
``biohybrid intents check --split clinical-fresh/dev`` measures the detector on a registered split.

Micro averages: every (query, intent) pair counts once, so frequent intents weigh more; a query with
no label and no detection contributes nothing, a detection on it is a false positive.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from control_plane.clinical.intents import IntentConfig, detect_intents
from control_plane.config.settings import describe_errors
from control_plane.errors import BiohybridError
from control_plane.locations import CONFIG_DIR

DEFAULT_LABELS_FILE: Final = CONFIG_DIR / "intent_labels.jsonl"

Form = Literal["exact", "paraphrase", "complex", "none"]
SAMPLE_FORMS: Final = get_args(Form)  # the packaged sample's forms


class IntentLabelError(BiohybridError, ValueError):
    """A labelled sample that cannot be read; the message names ``file:line``."""


class LabelledQuery(BaseModel):
    """One query of the sample and the intents a human asking it means; ``form`` is one of
    :data:`Form` in the packaged sample, a test set's own form name otherwise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1)
    intents: frozenset[str] = frozenset()
    form: str = Field(min_length=1)


@dataclass(frozen=True)
class Counts:
    """True positives, false positives and false negatives of (query, intent) pairs. Precision is None
    when nothing was detected and recall None when nothing was labelled (no evidence either way)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


@dataclass(frozen=True)
class QueryOutcome:
    """One query's detection compared with its labels (for listing the mistakes)."""

    labelled: LabelledQuery
    detected: frozenset[str]

    @property
    def missed(self) -> frozenset[str]:
        return self.labelled.intents - self.detected

    @property
    def spurious(self) -> frozenset[str]:
        return self.detected - self.labelled.intents


@dataclass(frozen=True)
class QualityReport:
    overall: Counts
    per_intent: dict[str, Counts]
    per_form: dict[str, Counts]
    outcomes: tuple[QueryOutcome, ...] = field(default=())

    @property
    def mistakes(self) -> tuple[QueryOutcome, ...]:
        return tuple(o for o in self.outcomes if o.missed or o.spurious)


def load_labels(
    path: Path = DEFAULT_LABELS_FILE, known_intents: Collection[str] | None = None
) -> list[LabelledQuery]:
    """The sample's records in file order (blank lines skipped). An intent outside ``known_intents``
    is an error: a typo would otherwise count as a miss the detector can never fix."""
    if not path.is_file():
        raise IntentLabelError(f"intent labels file not found: {path}")
    records: list[LabelledQuery] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = LabelledQuery.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise IntentLabelError(f"{where}: not valid JSON: {exc.msg}") from None
        except ValidationError as exc:
            raise IntentLabelError(f"{where}: {describe_errors(exc)}") from None
        if record.form not in SAMPLE_FORMS:
            raise IntentLabelError(f"{where}: form {record.form!r} is not one of {list(SAMPLE_FORMS)}")
        if known_intents is not None:
            _check_known(record.intents, known_intents, where)
        if record.form == "none" and record.intents:
            raise IntentLabelError(f"{where}: form 'none' with intents {sorted(record.intents)}")
        if record.form != "none" and not record.intents:
            raise IntentLabelError(f"{where}: form {record.form!r} needs at least one intent")
        records.append(record)
    return records


def labelled_questions(
    questions: Iterable[tuple[str, Mapping[str, object]]], known_intents: Collection[str]
) -> list[LabelledQuery]:
    """A test set's questions (text, metadata) as labelled queries: the metadata's ``intents`` (none: no
    intent) and ``form`` (none given: ``"none"`` without intents, else ``"unnamed"``). An intent outside
    ``known_intents`` is an error naming the question."""
    labelled: list[LabelledQuery] = []
    for text, metadata in questions:
        raw = metadata.get("intents") or []
        if not isinstance(raw, list) or not all(isinstance(name, str) for name in raw):
            raise IntentLabelError(f"question {text!r}: metadata 'intents' must be a list of names")
        _check_known(raw, known_intents, f"question {text!r}")
        form = metadata.get("form")
        name = form if isinstance(form, str) and form else ("unnamed" if raw else "none")
        labelled.append(LabelledQuery(query=text, intents=frozenset(raw), form=name))
    return labelled


def _check_known(intents: Iterable[str], known_intents: Collection[str], where: str) -> None:
    """An intent outside ``known_intents`` is an error at ``where``: a typo would otherwise count as a
    miss the detector can never fix."""
    unknown = sorted(set(intents) - set(known_intents))
    if unknown:
        raise IntentLabelError(f"{where}: unknown intent(s) {unknown}; known: {sorted(known_intents)}")


def _counts(outcome: QueryOutcome, intent: str | None = None) -> Counts:
    """One query's pairs: all of them, or only those of ``intent``."""
    labelled, detected = outcome.labelled.intents, outcome.detected
    if intent is not None:
        labelled, detected = labelled & {intent}, detected & {intent}
    return Counts(len(labelled & detected), len(detected - labelled), len(labelled - detected))


def _total(counts: Iterable[Counts]) -> Counts:
    return sum(counts, Counts())


def measure(
    labelled: Sequence[LabelledQuery], detected: Sequence[Iterable[str]], intents: Iterable[str] = ()
) -> QualityReport:
    """Compare each query's detected intents with its labels (the sequences align). ``intents`` lists
    intents to report even where neither labelled nor detected (in that order, others after)."""
    if len(labelled) != len(detected):
        raise ValueError(f"{len(labelled)} labelled queries but {len(detected)} detections")
    outcomes = tuple(
        QueryOutcome(record, frozenset(found)) for record, found in zip(labelled, detected, strict=True)
    )
    seen = sorted({name for o in outcomes for name in o.labelled.intents | o.detected})
    names = dict.fromkeys([*intents, *seen])
    forms = dict.fromkeys(o.labelled.form for o in outcomes)
    return QualityReport(
        overall=_total(_counts(o) for o in outcomes),
        per_intent={name: _total(_counts(o, name) for o in outcomes) for name in names},
        per_form={form: _total(_counts(o) for o in outcomes if o.labelled.form == form) for form in forms},
        outcomes=outcomes,
    )


def measure_detection(labelled: Sequence[LabelledQuery], config: IntentConfig) -> QualityReport:
    """``measure`` with the detector's answer for each query (any confidence counts: every detected
    intent is reported by /v1/search and may boost)."""
    detected = [[i.name for i in detect_intents(record.query, config)] for record in labelled]
    return measure(labelled, detected, config.intents)
