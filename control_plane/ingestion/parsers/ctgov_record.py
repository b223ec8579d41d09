"""Format-neutral ClinicalTrials.gov study record.

The registry has served three shapes (legacy XML, classic-API JSON ``FullStudiesResponse``, API v2 JSON);
each reader maps its shape onto :class:`TrialRecord`, and one builder turns that into a
:class:`~control_plane.ingestion.documents.Document`. Values stay strings as the registry wrote them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Arm:
    label: str
    arm_type: str
    description: str
    intervention_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Intervention:
    intervention_type: str
    name: str
    description: str
    arm_group_labels: tuple[str, ...] = ()
    other_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlannedOutcome:
    """A protocol-declared outcome measure; ``category`` is primary, secondary or other."""

    category: str
    measure: str
    description: str
    time_frame: str


@dataclass(frozen=True)
class ResultRow:
    """One row of reported values: a class/category label and the value per group id."""

    label: str
    values: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class OutcomeResult:
    """A reported outcome measure with its per-group values."""

    outcome_type: str
    title: str
    description: str
    time_frame: str
    units: str
    param: str
    groups: tuple[tuple[str, str], ...]
    rows: tuple[ResultRow, ...]


@dataclass(frozen=True)
class AdverseEvent:
    organ_system: str
    term: str
    counts: tuple[tuple[str, str, str], ...]
    """``(group_id, subjects_affected, subjects_at_risk)`` per group."""


@dataclass(frozen=True)
class AdverseEvents:
    groups: tuple[tuple[str, str], ...]
    serious: tuple[AdverseEvent, ...]
    other: tuple[AdverseEvent, ...]
    description: str = ""
    time_frame: str = ""
    frequency_threshold: str = ""


@dataclass(frozen=True)
class TrialRecord:
    nct_id: str
    brief_title: str
    official_title: str = ""
    acronym: str = ""
    org_study_id: str = ""
    secondary_ids: tuple[str, ...] = ()
    nct_aliases: tuple[str, ...] = ()
    """Obsolete NCT ids the registry merged into this one (``nct_alias``)."""
    overall_status: str = ""
    sponsor: str = ""
    brief_summary: str = ""
    detailed_description: str = ""
    conditions: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    condition_mesh_terms: tuple[str, ...] = ()
    intervention_mesh_terms: tuple[str, ...] = ()
    study_type: str = ""
    phases: tuple[str, ...] = ()
    design: dict[str, str] = field(default_factory=dict)
    enrollment: str = ""
    arms: tuple[Arm, ...] = ()
    interventions: tuple[Intervention, ...] = ()
    planned_outcomes: tuple[PlannedOutcome, ...] = ()
    eligibility_criteria: str = ""
    eligibility_facts: dict[str, str] = field(default_factory=dict)
    dates: dict[str, str] = field(default_factory=dict)
    """Raw registry dates keyed by ``first_posted``, ``start``, ``primary_completion``, ``completion``,
    ``last_update_posted``, ``results_first_posted``."""
    outcome_results: tuple[OutcomeResult, ...] = ()
    adverse_events: AdverseEvents | None = None
    source_format: str = ""


def format_measurement(value: str, spread: str = "", lower: str = "", upper: str = "") -> str:
    """``"12.5 (3.1)"`` with a spread, ``"12.5 (9.8 to 15.0)"`` with limits, else the bare value."""
    if spread:
        return f"{value} ({spread})"
    if lower or upper:
        return f"{value} ({lower or '?'} to {upper or '?'})"
    return value
