"""From a spec to its clinical boosts: detect (or take the override of) the query's intents and plan
the boosts. The service applies them after fusion, inside the records the query is about
(control_plane/search/routing.py), so a boost never lifts an off-topic record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from control_plane.config.settings import Settings
from control_plane.locations import CONFIG_DIR
from control_plane.query.components import BM25_FIELD_BOOSTS
from control_plane.search.facet_boost import bm25_field_boosts
from control_plane.search.intents import (
    Boost,
    DetectedIntent,
    IntentConfig,
    detect_intents,
    intents_from_override,
    load_intent_config,
    plan_boosts,
)
from control_plane.search.spec import SearchSpec

TABULAR = "tabular"


@dataclass(frozen=True)
class IntentPlan:
    """The spec to search with (filters possibly narrowed by an intent), the detected intents, the
    boosts to route with (empty: no routing) and the BM25 field weights (facet_json raised for an
    intent with boosts on, at the configured granularities: control_plane/search/facet_boost.py)."""

    spec: SearchSpec
    intents: tuple[DetectedIntent, ...] = ()
    boosts: tuple[Boost, ...] = ()
    bm25_fields: Mapping[str, float] = field(default_factory=lambda: dict(BM25_FIELD_BOOSTS))


@lru_cache(maxsize=4)
def intent_config(path: str) -> IntentConfig:
    return load_intent_config(Path(path))


def intent_config_path(settings: Settings) -> Path:
    configured = Path(settings.search.intents_file)
    return configured if configured.is_absolute() else CONFIG_DIR / configured


def plan_intents(spec: SearchSpec, settings: Settings) -> IntentPlan:
    """Intents are always detected (reported and counted); boosts only when ``spec.boosts``."""
    config = intent_config(str(intent_config_path(settings)))
    if spec.query_intent:
        detected = intents_from_override(spec.query_intent, config)
    else:
        detected = detect_intents(spec.query, config)
    manual_tabular = bool(spec.query_intent) and TABULAR in (spec.query_intent or [])
    boosts = plan_boosts(detected, config, manual_tabular=manual_tabular) if spec.boosts else []
    narrowed = _restrict_sources(spec, detected, config) if spec.boosts else spec
    fields = bm25_field_boosts(detected, spec.boosts, spec.granularity, settings.search.facets)
    return IntentPlan(spec=narrowed, intents=tuple(detected), boosts=tuple(boosts), bm25_fields=fields)


def _restrict_sources(
    spec: SearchSpec, detected: Sequence[DetectedIntent], config: IntentConfig
) -> SearchSpec:
    """An intent configured with ``restrict_to_sources`` (eligibility -> ctgov) narrows the source
    filter, unless the request already filters sources itself."""
    if spec.filters.source:
        return spec
    sources: list[str] = []
    for intent in detected:
        rule = config.intents.get(intent.name)
        if rule is not None and rule.restrict_to_sources:
            sources.extend(rule.restrict_to_sources)
    if not sources:
        return spec
    filters = spec.filters.model_copy(update={"source": sorted(set(sources))})
    return spec.model_copy(update={"filters": filters})
