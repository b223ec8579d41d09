"""A search spec's clinical plan (control_plane/clinical/planning.py), with the spec narrowed to the
sources an intent asks for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from control_plane.clinical.intents import Boost, DetectedIntent
from control_plane.clinical.planning import ClinicalPlan, intent_config, intent_config_path, plan_clinical
from control_plane.config.settings import Settings
from control_plane.search.spec import SearchSpec


@dataclass(frozen=True)
class IntentPlan:
    """The spec to search with (its source filter narrowed by an intent) and its clinical plan."""

    spec: SearchSpec
    clinical: ClinicalPlan

    @property
    def intents(self) -> tuple[DetectedIntent, ...]:
        return self.clinical.intents

    @property
    def boosts(self) -> tuple[Boost, ...]:
        return self.clinical.boosts

    @property
    def bm25_fields(self) -> Mapping[str, float]:
        return self.clinical.bm25_fields

    @property
    def semantic_text(self) -> str:
        """What the dense and sparse components search with: the clinical topic, else the query."""
        return self.clinical.semantic_text(self.spec.query)


def plan_intents(spec: SearchSpec, settings: Settings) -> IntentPlan:
    clinical = plan_clinical(
        spec.query,
        intent_config(str(intent_config_path(settings))),
        settings.search.facets,
        named_intents=spec.query_intent,
        boosts_on=spec.boosts,
        granularity=spec.granularity,
        sources_filtered=bool(spec.filters.source),
    )
    if not clinical.sources:
        return IntentPlan(spec, clinical)
    filters = spec.filters.model_copy(update={"source": list(clinical.sources)})
    return IntentPlan(spec.model_copy(update={"filters": filters}), clinical)
