from __future__ import annotations

from typing import Any

import pytest

from control_plane.api.search_labels import search_labels
from control_plane.search.results import BoostInfo, FusionInfo, SearchMetadata, Timings


def _meta(**changes: Any) -> SearchMetadata:
    fields: dict[str, Any] = {
        "query": "q",
        "query_type": "keyword",
        "granularity": "chunk",
        "fusion": FusionInfo(method="rrf", rank_constant=60),
        "components_used": ["bm25", "splade", "dense"],
        "total_candidates": 3,
        "from": 0,
        "size": 10,
        "timings": Timings(total_ms=12.0),
    }
    fields.update(changes)
    return SearchMetadata.model_validate(fields)


def _boost(intent: str, field: str) -> BoostInfo:
    return BoostInfo(intent=intent, field=field, values=[True], factor=1.5, reason="r")


@pytest.mark.parametrize(
    ("used", "mode"), [(["bm25", "dense"], "hybrid"), (["dense"], "dense"), ([], "none")]
)
def test_mode_is_hybrid_only_with_more_than_one_component(used: list[str], mode: str) -> None:
    assert search_labels(_meta(components_used=used)).mode == mode


def test_rerank_outcome() -> None:
    assert search_labels(_meta()).rerank == "off"
    assert search_labels(_meta(reranked=True)).rerank == "applied"
    assert search_labels(_meta(reranker_error="timeout")).rerank == "fallback"


def test_table_routing_is_counted_apart_from_section_boosts() -> None:
    meta = _meta(
        boosts=[
            _boost("results", "is_table"),
            _boost("eligibility", "section_kind"),
            _boost("eligibility", "intent_hint"),
            _boost("adverse_events", "section_kind"),
        ]
    )
    labels = search_labels(meta)
    assert labels.boosted_intents == ("adverse_events", "eligibility")
    assert labels.table_routed and labels.fusion == "rrf"


def test_no_boosts() -> None:
    labels = search_labels(_meta(fusion=FusionInfo(method="weighted")))
    assert labels.boosted_intents == () and not labels.table_routed and labels.fusion == "weighted"
