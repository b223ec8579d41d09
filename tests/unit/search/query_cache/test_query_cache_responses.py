from typing import Any

import pytest

from control_plane.search.query_cache.responses import cacheable, served_from_cache
from control_plane.search.results import (
    CacheInfo,
    ChunkResult,
    FusionInfo,
    SearchMetadata,
    SearchResponse,
    ShardCounts,
    Timings,
)
from control_plane.search.spec import SearchSpec

SPEC = SearchSpec.model_validate({"query": "statin myopathy", "components": ["bm25", "dense"]})


def _answer(**metadata: Any) -> SearchResponse:
    fields: dict[str, Any] = {
        "query": "statin myopathy",
        "query_type": "paraphrase",
        "granularity": "chunk",
        "fusion": FusionInfo(method="rrf", rank_constant=60),
        "components_used": ["bm25", "dense"],
        "total_candidates": 1,
        "shards": ShardCounts(total=1, successful=1),
        "from_": 0,
        "size": 10,
        "timings": Timings(total_ms=120.0, encode_ms={"dense": 40.0}, opensearch_ms=50.0),
        **metadata,
    }
    result = ChunkResult(chunk_id="d1:0", doc_id="d1", text="statins and myopathy", score=0.5)
    return SearchResponse(results=[result], metadata=SearchMetadata(**fields))


def test_a_complete_answer_is_cacheable() -> None:
    assert cacheable(_answer(), SPEC)


@pytest.mark.parametrize(
    "degraded",
    [
        {"components_used": ["bm25"], "component_errors": ["dense_timeout"]},
        {"components_used": ["bm25"]},
        {"component_errors": ["section_fetch_failed"]},
        {"reranker_error": "timeout"},
        {"shards": ShardCounts(total=2, successful=1, failed=1), "partial": True},
    ],
)
def test_a_degraded_answer_is_not(degraded: dict[str, Any]) -> None:
    assert not cacheable(_answer(**degraded), SPEC)


def test_a_served_answer_keeps_the_results_and_says_where_it_came_from() -> None:
    stored = _answer()
    info = CacheInfo(response="hit", state_ms=2.5)
    served = served_from_cache(stored, info, total_ms=3.25)
    assert served.results == stored.results
    assert served.metadata.cache == info
    assert served.metadata.timings == Timings(total_ms=3.25, opensearch_round_trip_ms=2.5)
    unchanged = {"cache", "timings"}
    assert served.metadata.model_dump(exclude=unchanged) == stored.metadata.model_dump(exclude=unchanged)
    assert stored.metadata.timings.total_ms == 120.0  # the stored answer itself is left as it was
