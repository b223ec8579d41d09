"""What an answer's metadata says about how it was made: the intents found, the boosts applied, the
fusion and OpenSearch's time per sub-query, as the response models carry them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from control_plane.clinical.intents import Boost, DetectedIntent
from control_plane.search.results import BoostInfo, FusionInfo, IntentInfo
from control_plane.search.spec import SearchSpec


def intent_info(intent: DetectedIntent) -> IntentInfo:
    return IntentInfo(name=intent.name, confidence=round(intent.confidence, 4), matched=list(intent.matched))


def boost_info(boost: Boost) -> BoostInfo:
    return BoostInfo(
        intent=boost.intent,
        field=boost.field,
        values=list(boost.values),
        factor=round(boost.factor, 4),
        reason=boost.reason,
        tables_only=boost.tables_only,
    )


def fusion_info(spec: SearchSpec, weights: Mapping[str, float] | None) -> FusionInfo:
    rounded = {name: round(w, 6) for name, w in weights.items()} if weights is not None else None
    if spec.fusion_method == "rrf":
        return FusionInfo(method="rrf", rank_constant=spec.rank_constant, weights=rounded)
    return FusionInfo(method="weighted", weights=rounded)


def profile_ms(response: Mapping[str, Any], components: Sequence[str]) -> dict[str, float] | None:
    """Per sub-query time from a profiled hybrid query (children in sub-query order)."""
    try:
        query = response["profile"]["shards"][0]["searches"][0]["query"][0]
    except (KeyError, IndexError, TypeError):
        return None
    children = query.get("children") or []
    if len(children) != len(components):
        return None
    return {
        name: round(child.get("time_in_nanos", 0) / 1e6, 3)
        for name, child in zip(components, children, strict=True)
    }
