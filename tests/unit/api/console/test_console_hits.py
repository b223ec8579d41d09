"""A column's hits: route notes of /v1/search hits from the answer's intents and boosts, and a pipeline's
hits read from OpenSearch's response (renamed Haystack fields, named-query scores, highlights)."""

from __future__ import annotations

from typing import Any

import pytest

from control_plane.api.console.hits import (
    client_source,
    pipeline_hits,
    pipeline_route_note,
    search_route_note,
)
from control_plane.search.results import (
    BoostInfo,
    ChunkResult,
    ComponentScores,
    FusionInfo,
    IntentInfo,
    SearchMetadata,
    Timings,
)

AE_BOOST = BoostInfo(
    intent="adverse_events", field="intent_hint", values=["adverse_events"], factor=1.8, reason="ae cue"
)


def metadata(boosts: list[BoostInfo], absent: list[str] | None = None) -> SearchMetadata:
    return SearchMetadata(
        query="q",
        query_type="natural",
        granularity="chunk",
        fusion=FusionInfo(method="rrf"),
        components_used=["bm25"],
        absent_records=absent or [],
        intents=[IntentInfo(name="adverse_events", confidence=0.9)],
        boosts=boosts,
        total_candidates=1,
        from_=0,
        size=10,
        timings=Timings(total_ms=1.0),
    )


def chunk(intent_hint: str | None, near_empty: bool = False, fetched: bool = False) -> ChunkResult:
    """A fused hit (BM25 found it) or, ``fetched``, a section routing's fetch added (no component did)."""
    return ChunkResult(
        chunk_id="c",
        doc_id="NCT1",
        text="t",
        score=1.0,
        intent_hint=intent_hint,
        near_empty=near_empty,
        component_scores=ComponentScores(bm25=None if fetched else 3.0),
    )


@pytest.mark.parametrize(
    ("hit", "boosts", "absent", "boosts_on", "note"),
    [
        (chunk("adverse_events"), [AE_BOOST], None, True, "intents=adverse_events; section boost x1.80"),
        (chunk("eligibility"), [AE_BOOST], None, True, "intents=adverse_events; no section boost"),
        (
            chunk("adverse_events", near_empty=True),
            [AE_BOOST],
            None,
            True,
            "intents=adverse_events; no section boost",
        ),
        (
            chunk("adverse_events", fetched=True),
            [AE_BOOST],
            None,
            True,
            "intents=adverse_events; section boost x1.80; fetched by routing (no component found it)",
        ),
        (chunk("adverse_events"), [], None, True, "intents=adverse_events; no boost"),
        (chunk("adverse_events"), [], None, False, "intents=adverse_events; boosts off"),
        (
            chunk("adverse_events"),
            [AE_BOOST],
            ["NCT09999999"],
            True,
            "intents=adverse_events; not routed: no record here carries NCT09999999",
        ),
    ],
)
def test_a_search_hit_notes_the_boost_its_section_matches(
    hit: ChunkResult, boosts: list[BoostInfo], absent: list[str] | None, boosts_on: bool, note: str
) -> None:
    assert search_route_note(hit, metadata(boosts, absent), boosts_on) == note


def test_a_pipeline_hit_keeps_the_pipelines_note_or_says_why_it_has_none() -> None:
    note = "intents=adverse_events; lifted x1.45"
    assert pipeline_route_note({"metadata": {"clinical_route": note}}, "clinical-rrf") == note
    assert pipeline_route_note({"clinical_route": note}, "clinical-rrf-haystack") == note
    assert pipeline_route_note({}, "clinical-rrf").startswith("no route note: the pipeline's route step")
    assert pipeline_route_note({}, "hybrid-rrf") == "not routed: hybrid-rrf has no clinical step"


def test_haystack_fields_are_named_back() -> None:
    source = {"content": "text", "id": "c1", "doc_id": "d1"}
    assert client_source(source, "clinical-rrf-haystack") == {
        "text": "text",
        "chunk_id": "c1",
        "doc_id": "d1",
    }
    assert client_source(source, "clinical-rrf") == source


def response_hit(score: float) -> dict[str, Any]:
    return {
        "_id": "os-1",
        "_score": score,
        "matched_queries": {"bm25": 2.5, "dense": 1.5},
        "_source": {
            "chunk_id": "c1",
            "doc_id": "NCT1",
            "section": "adverse_events",
            "text": "Adverse events were mild.",
        },
    }


def test_pipeline_hits_carry_rank_scores_and_highlights() -> None:
    [hit] = pipeline_hits([response_hit(0.7)], "hybrid-rrf", "adverse events")
    assert (hit.rank, hit.chunk_id, hit.doc_id, hit.section, hit.score) == (
        1,
        "c1",
        "NCT1",
        "adverse_events",
        0.7,
    )
    assert hit.component_scores.model_dump() == {"bm25": 2.5, "splade": None, "dense": 1.5, "reranker": None}
    assert [(h.start, h.end, h.text) for h in hit.highlights] == [(0, 14, "Adverse events")]
    assert hit.route_note == "not routed: hybrid-rrf has no clinical step"


def test_a_hybrid_rerank_hits_score_is_the_rerankers_a_clinical_ones_is_not() -> None:
    [hybrid] = pipeline_hits([response_hit(3.2)], "hybrid-rrf-rerank", "q")
    [clinical] = pipeline_hits([response_hit(0.9)], "clinical-rrf-rerank", "q")
    assert hybrid.component_scores.reranker == 3.2 and clinical.component_scores.reranker is None
