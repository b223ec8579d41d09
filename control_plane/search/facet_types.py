"""The typed facts of facet granularity: one model per kind of ``facet_json`` the ClinicalTrials.gov
layout writes (control_plane/ingestion/parsers/ctgov_document.py), told apart by ``kind``.

Every model keeps keys it does not name (``extra="allow"``): a fact the registry adds, or a design key
of one registry format, reaches the client as it was stored, never dropped. Values stay the strings the
registry wrote, except adverse-event counts, which are participant numbers and are parsed to integers
("" or a missing count: null).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

FacetKind = Literal[
    "design",
    "conditions",
    "arms",
    "interventions",
    "eligibility",
    "outcome_measures",
    "outcome_results",
    "adverse_events",
    "other",
]


class _Open(BaseModel):
    """Named fields typed; any other key kept as stored."""

    model_config = ConfigDict(extra="allow", frozen=True)


class DesignFacet(_Open):
    """Study type, phases, enrollment; the design keys of the record's format (allocation, masking,
    intervention_model, primary_purpose...) come through as extra keys."""

    kind: Literal["design"] = "design"
    study_type: str | None = None
    phases: list[str] = Field(default_factory=list)
    enrollment: str | None = None


class ConditionsFacet(_Open):
    kind: Literal["conditions"] = "conditions"
    conditions: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    condition_mesh_terms: list[str] = Field(default_factory=list)


class Dosage(_Open):
    """Dose, frequency and route mentions found in the text (control_plane/ingestion/parsers/dosage.py)."""

    doses: list[str] = Field(default_factory=list)
    frequencies: list[str] = Field(default_factory=list)
    routes: list[str] = Field(default_factory=list)


class ArmFact(Dosage):
    label: str | None = None
    type: str | None = None
    description: str | None = None
    interventions: list[str] = Field(default_factory=list)


class ArmsFacet(_Open):
    kind: Literal["arms"] = "arms"
    arms: list[ArmFact] = Field(default_factory=list)


class InterventionFact(Dosage):
    type: str | None = None
    name: str | None = None
    description: str | None = None
    other_names: list[str] = Field(default_factory=list)
    arm_group_labels: list[str] = Field(default_factory=list)


class InterventionsFacet(_Open):
    kind: Literal["interventions"] = "interventions"
    interventions: list[InterventionFact] = Field(default_factory=list)


class EligibilityFacet(_Open):
    """The record's eligibility facts (on the eligibility section and its inclusion/exclusion parts)."""

    kind: Literal["eligibility"] = "eligibility"
    sex: str | None = None
    minimum_age: str | None = None
    maximum_age: str | None = None
    healthy_volunteers: str | None = None
    sampling_method: str | None = None
    study_population: str | None = None


class PlannedOutcome(_Open):
    category: str | None = Field(None, description="primary, secondary or other")
    measure: str | None = None
    description: str | None = None
    time_frame: str | None = None


class OutcomeMeasuresFacet(_Open):
    """The outcome measures the protocol planned (one category per section)."""

    kind: Literal["outcome_measures"] = "outcome_measures"
    outcome_measures: list[PlannedOutcome] = Field(default_factory=list)


class ResultRow(_Open):
    label: str | None = None
    values: dict[str, str] = Field(default_factory=dict, description="value per group id, as reported")


class OutcomeResultsFacet(_Open):
    """One reported outcome measure: its groups (id -> title) and a row of values per class."""

    kind: Literal["outcome_results"] = "outcome_results"
    outcome_type: str | None = None
    title: str | None = None
    units: str | None = None
    param: str | None = None
    time_frame: str | None = None
    groups: dict[str, str] = Field(default_factory=dict)
    rows: list[ResultRow] = Field(default_factory=list)


class EventCount(_Open):
    """Participants affected and at risk in one group."""

    affected: int | None = None
    at_risk: int | None = None

    @field_validator("affected", "at_risk", mode="before")
    @classmethod
    def _count(cls, value: Any) -> Any:
        """The registry writes counts as strings ("3"); "" means not reported."""
        if isinstance(value, str):
            text = value.strip().replace(",", "")
            if not text:
                return None
            if not text.isdigit():
                raise ValueError(f"a participant count must be a whole number, got {value!r}")
            return int(text)
        return value


class AdverseEvent(_Open):
    organ_system: str | None = None
    term: str | None = None
    counts: dict[str, EventCount] = Field(default_factory=dict, description="per group id")


class AdverseEventsFacet(_Open):
    """A serious or other adverse-event table (``seriousness`` and ``events``), or the adverse-event
    overview (``groups`` and ``frequency_threshold`` only)."""

    kind: Literal["adverse_events"] = "adverse_events"
    seriousness: str | None = Field(None, description="serious or other; null on the overview")
    groups: dict[str, str] = Field(default_factory=dict, description="group id -> title")
    events: list[AdverseEvent] = Field(default_factory=list)
    frequency_threshold: str | None = None


class OtherFacet(_Open):
    """Facts of a kind this API does not type: every key as stored."""

    kind: Literal["other"] = "other"


Facet = Annotated[
    DesignFacet
    | ConditionsFacet
    | ArmsFacet
    | InterventionsFacet
    | EligibilityFacet
    | OutcomeMeasuresFacet
    | OutcomeResultsFacet
    | AdverseEventsFacet
    | OtherFacet,
    Field(discriminator="kind"),
]

FACET_MODELS: dict[str, type[_Open]] = {
    "design": DesignFacet,
    "conditions": ConditionsFacet,
    "arms": ArmsFacet,
    "interventions": InterventionsFacet,
    "eligibility": EligibilityFacet,
    "outcome_measures": OutcomeMeasuresFacet,
    "outcome_results": OutcomeResultsFacet,
    "adverse_events": AdverseEventsFacet,
    "other": OtherFacet,
}
