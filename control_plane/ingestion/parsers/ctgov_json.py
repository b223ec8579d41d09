"""One reader for both ClinicalTrials.gov JSON shapes, driven by a field map per shape.

The classic API (``FullStudiesResponse``, PascalCase, lists wrapped as ``{"XList": {"X": [...]}}``) and API
v2 (camelCase, plain lists, upper-case enums, markdown-escaped text) hold the same facts in different
places. A :class:`TrialJsonMap` says where each :class:`TrialRecord` field lives in one shape and how its
values read (``enum`` and ``prose`` turn registry values into registry wording); ``read_trial`` walks any
map the same way, so a field added to the record is added to both maps, not to two parallel readers.
Paths are key sequences for json_access; a path may hold ``{Category}``/``{category}`` (Primary,
Secondary, Other) or ``{Prefix}``/``{prefix}`` (Serious, Other) placeholders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from control_plane.ingestion.parsers.ctgov_record import (
    AdverseEvent,
    AdverseEvents,
    Arm,
    Intervention,
    OutcomeResult,
    PlannedOutcome,
    ResultRow,
    TrialRecord,
    format_measurement,
)
from control_plane.ingestion.parsers.json_access import JsonObject, get, objects, strings, text

KeyPath = tuple[str, ...]
OUTCOME_CATEGORIES = ("Primary", "Secondary", "Other")
EVENT_KINDS = ("Serious", "Other")


def _identity(value: str) -> str:
    return value


@dataclass(frozen=True)
class ArmsMap:
    module: KeyPath  # arms and interventions below it
    arms: KeyPath
    label: str
    arm_type: str
    description: str
    intervention_names: KeyPath
    interventions: KeyPath
    intervention_type: str
    intervention_name: str
    intervention_description: str
    arm_group_labels: KeyPath
    other_names: KeyPath


@dataclass(frozen=True)
class PlannedOutcomesMap:
    """Per category (placeholders ``{Category}``/``{category}``): the list and the keys of an item."""

    items: KeyPath
    measure: str
    description: str
    time_frame: str


@dataclass(frozen=True)
class OutcomeResultsMap:
    measures: KeyPath  # from the study root
    outcome_type: str
    title: str
    description: str
    time_frame: str
    units: str
    param: str
    groups: KeyPath
    group_id: str
    group_title: str
    classes: KeyPath
    class_title: str
    categories: KeyPath
    category_title: str
    measurements: KeyPath
    measurement_group: str
    value: str
    spread: str
    lower: str
    upper: str


@dataclass(frozen=True)
class AdverseEventsMap:
    module: KeyPath  # from the results section
    groups: KeyPath
    group_id: str
    group_title: str
    events: KeyPath  # per kind (placeholders ``{Prefix}``/``{prefix}``)
    organ_system: str
    term: str
    stats: KeyPath
    stats_group: str
    affected: str
    at_risk: str
    description: str
    time_frame: str
    frequency_threshold: str


@dataclass(frozen=True)
class TrialJsonMap:
    """Where one JSON shape keeps each TrialRecord field. ``text`` fields are (path, kind) with kind
    ``plain``, ``enum`` (read with ``enum``) or ``prose`` (read with ``prose``); paths start at the
    protocol section unless noted."""

    source_format: str
    protocol: str
    derived: str
    results: str
    texts: Mapping[str, tuple[KeyPath, str]]
    string_lists: Mapping[str, tuple[KeyPath, str]]
    secondary_ids: tuple[KeyPath, str]
    condition_mesh: tuple[KeyPath, str]  # from the derived section
    intervention_mesh: tuple[KeyPath, str]
    enrollment: tuple[KeyPath, KeyPath]  # count, type
    design_info: KeyPath
    design: Mapping[str, KeyPath]  # under design_info; a list value is joined with ", "
    eligibility: KeyPath
    eligibility_facts: Mapping[str, str]  # under eligibility; read as enums
    status: KeyPath
    dates: Mapping[str, KeyPath]  # under status
    arms: ArmsMap
    planned: PlannedOutcomesMap
    outcome_results: OutcomeResultsMap
    adverse_events: AdverseEventsMap
    enum: Callable[[str], str] = _identity
    prose: Callable[[str], str] = _identity

    def convert(self, value: str, kind: str) -> str:
        if kind == "enum":
            return self.enum(value)
        if kind == "prose":
            return self.prose(value)
        return value

    def read(self, node: Any, path: KeyPath, kind: str = "plain") -> str:
        return self.convert(text(node, *path), kind)


def _fill(path: KeyPath, word: str, key: str) -> KeyPath:
    """``path`` with ``{Key}`` as ``word`` and ``{key}`` as its lower case."""
    values = {key.capitalize(): word, key: word.lower()}
    return tuple(part.format(**values) for part in path)


def _joined(node: Any, path: KeyPath) -> str:
    value = get(node, *path)
    if isinstance(value, list):
        return ", ".join(strings(node, *path))
    return text(node, *path)


def _planned(protocol: Any, m: TrialJsonMap) -> tuple[PlannedOutcome, ...]:
    p = m.planned
    planned = []
    for category in OUTCOME_CATEGORIES:
        keys = [_fill((k,), category, "category")[0] for k in (p.measure, p.description, p.time_frame)]
        for item in objects(protocol, *_fill(p.items, category, "category")):
            planned.append(
                PlannedOutcome(
                    category.lower(), text(item, keys[0]), m.prose(text(item, keys[1])), text(item, keys[2])
                )
            )
    return tuple(planned)


def _outcome_result(measure: JsonObject, m: TrialJsonMap) -> OutcomeResult:
    r = m.outcome_results
    rows = []
    for klass in objects(measure, *r.classes):
        for category in objects(klass, *r.categories):
            label = " / ".join(p for p in (text(klass, r.class_title), text(category, r.category_title)) if p)
            values = tuple(
                (
                    text(x, r.measurement_group),
                    format_measurement(
                        text(x, r.value), text(x, r.spread), text(x, r.lower), text(x, r.upper)
                    ),
                )
                for x in objects(category, *r.measurements)
            )
            rows.append(ResultRow(label, values))
    return OutcomeResult(
        outcome_type=m.enum(text(measure, r.outcome_type)),
        title=text(measure, r.title),
        description=m.prose(text(measure, r.description)),
        time_frame=text(measure, r.time_frame),
        units=text(measure, r.units),
        param=m.enum(text(measure, r.param)),
        groups=tuple((text(g, r.group_id), text(g, r.group_title)) for g in objects(measure, *r.groups)),
        rows=tuple(rows),
    )


def _events(module: Any, kind: str, a: AdverseEventsMap) -> tuple[AdverseEvent, ...]:
    def key(name: str) -> str:
        return _fill((name,), kind, "prefix")[0]

    return tuple(
        AdverseEvent(
            text(event, key(a.organ_system)),
            text(event, key(a.term)),
            tuple(
                (text(s, key(a.stats_group)), text(s, key(a.affected)), text(s, key(a.at_risk)))
                for s in objects(event, *_fill(a.stats, kind, "prefix"))
            ),
        )
        for event in objects(module, *_fill(a.events, kind, "prefix"))
    )


def _adverse_events(results: Any, m: TrialJsonMap) -> AdverseEvents | None:
    a = m.adverse_events
    module = get(results, *a.module)
    if not isinstance(module, dict):
        return None
    return AdverseEvents(
        groups=tuple((text(g, a.group_id), text(g, a.group_title)) for g in objects(module, *a.groups)),
        serious=_events(module, "Serious", a),
        other=_events(module, "Other", a),
        description=m.prose(text(module, a.description)),
        time_frame=text(module, a.time_frame),
        frequency_threshold=text(module, a.frequency_threshold),
    )


def read_trial(study: JsonObject, m: TrialJsonMap) -> TrialRecord:
    """Map one study of the shape ``m`` describes; raises ``ValueError`` without an NCT id."""
    protocol = get(study, m.protocol)
    nct_id = m.read(protocol, m.texts["nct_id"][0])
    if not nct_id:
        raise ValueError(f"no {m.protocol}.{'.'.join(m.texts['nct_id'][0])}")
    derived, results = get(study, m.derived), get(study, m.results)
    design_info, eligibility = get(protocol, *m.design_info), get(protocol, *m.eligibility)
    status = get(protocol, *m.status)
    a = m.arms
    arms_module = get(protocol, *a.module)
    count, kind = m.enrollment
    enrollment, enrollment_type = text(protocol, *count), m.enum(text(protocol, *kind))
    ids_path, id_key = m.secondary_ids
    mapped: dict[str, Any] = {name: m.read(protocol, path, how) for name, (path, how) in m.texts.items()}
    mapped.update(
        {
            name: tuple(m.convert(value, how) for value in strings(protocol, *path))
            for name, (path, how) in m.string_lists.items()
        }
    )
    return TrialRecord(
        **mapped,
        secondary_ids=tuple(text(item, id_key) for item in objects(protocol, *ids_path)),
        condition_mesh_terms=tuple(
            text(x, m.condition_mesh[1]) for x in objects(derived, *m.condition_mesh[0])
        ),
        intervention_mesh_terms=tuple(
            text(x, m.intervention_mesh[1]) for x in objects(derived, *m.intervention_mesh[0])
        ),
        design={name: m.enum(v) for name, path in m.design.items() if (v := _joined(design_info, path))},
        enrollment=f"{enrollment} ({enrollment_type})" if enrollment and enrollment_type else enrollment,
        arms=tuple(
            Arm(
                text(arm, a.label),
                m.enum(text(arm, a.arm_type)),
                m.prose(text(arm, a.description)),
                strings(arm, *a.intervention_names),
            )
            for arm in objects(arms_module, *a.arms)
        ),
        interventions=tuple(
            Intervention(
                m.enum(text(item, a.intervention_type)),
                text(item, a.intervention_name),
                m.prose(text(item, a.intervention_description)),
                strings(item, *a.arm_group_labels),
                strings(item, *a.other_names),
            )
            for item in objects(arms_module, *a.interventions)
        ),
        planned_outcomes=_planned(protocol, m),
        eligibility_facts={
            name: m.enum(v) for name, key in m.eligibility_facts.items() if (v := text(eligibility, key))
        },
        dates={name: v for name, path in m.dates.items() if (v := text(status, *path))},
        outcome_results=tuple(_outcome_result(x, m) for x in objects(study, *m.outcome_results.measures)),
        adverse_events=_adverse_events(results, m),
        source_format=m.source_format,
    )
