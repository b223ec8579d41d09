"""Structured facts on the query side: the filter of facet granularity and the facet_json field weight.

A clinical question (an intent from intents.yaml was detected or named, boosts on) asks for facts a
record states in its structured fields (eligibility ages, adverse-event counts, outcome measures,
doses), so the BM25 clause weighs ``facet_json`` by ``search.facets.intent_boost`` times its usual
weight (1.6 x 2.0 = 3.2 by default); without an intent, or with ``boosts: false``, the weights stay as
they are. By default only facet granularity gets it (``search.facets.boost_granularities``): among
chunks that all carry facts it prefers the ones whose facts match; a trial run on clinical/dev found
it lowered nDCG@10 slightly on the routed chunk path (docs/api/search.md, "Facet granularity"). Unlike
the routed boosts this changes the BM25 sub-query itself, so ``/v1/rewrite`` shows it and a client sending the
rewritten request gets it too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from control_plane.clinical.intents import DetectedIntent
from control_plane.config.search_settings import FacetSettings
from control_plane.query.components import BM25_FIELD_BOOSTS, FACET_FIELD


def facets_only_filter() -> dict[str, Any]:
    """The filter of facet granularity: chunks that carry structured facts (a fresh copy)."""
    return {"exists": {"field": FACET_FIELD}}


def bm25_field_boosts(
    intents: Sequence[DetectedIntent],
    boosts_on: bool,
    granularity: str,
    settings: FacetSettings,
    base: Mapping[str, float] = BM25_FIELD_BOOSTS,
) -> dict[str, float]:
    """The BM25 field weights for a search: ``base``, with ``facet_json`` multiplied by
    ``settings.intent_boost`` when an intent is present, boosts are on and ``granularity`` is one of
    ``settings.boost_granularities``."""
    weights = dict(base)
    if boosts_on and intents and granularity in settings.boost_granularities and FACET_FIELD in weights:
        weights[FACET_FIELD] = weights[FACET_FIELD] * settings.intent_boost
    return weights


def facet_boost_factor(
    weights: Mapping[str, float], base: Mapping[str, float] = BM25_FIELD_BOOSTS
) -> float | None:
    """The multiplier ``weights`` put on facet_json relative to ``base``; None when there is none."""
    weight = weights.get(FACET_FIELD)
    if weight is None or not base.get(FACET_FIELD) or weight == base[FACET_FIELD]:
        return None
    return round(weight / base[FACET_FIELD], 6)
