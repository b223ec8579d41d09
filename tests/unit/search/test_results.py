from typing import Any

from control_plane.search.results import (
    ComponentScores,
    Layout,
    LayoutBox,
    ShardCounts,
    chunk_result,
    component_scores,
    normalized_scores,
)


def _hit(**extra: Any) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "_id": "d1:chunk:0",
        "_score": 0.8,
        "_source": {"chunk_id": "d1:chunk:0", "doc_id": "d1", "text": "statins", "start": 5, "end": 12},
        "matched_queries": {"bm25": 7.5, "dense": 1.6},
    }
    hit.update(extra)
    return hit


def test_component_scores_come_from_the_named_queries() -> None:
    assert component_scores(_hit(), reranked=False) == ComponentScores(bm25=7.5, dense=1.6)


def test_a_reranked_hit_reports_its_score_as_the_rerankers() -> None:
    assert component_scores(_hit(), reranked=True).reranker == 0.8


def test_normalised_scores_map_explanation_entries_to_the_components_that_matched() -> None:
    # The explanation lists only matched sub-queries (here bm25 and dense), in sub-query order.
    explanation = {
        "value": 0.8,
        "description": "arithmetic_mean, weights [0.3, 0.35, 0.35] combination of:",
        "details": [
            {"value": 0.9, "description": "min_max normalization of:", "details": []},
            {"value": 0.5, "description": "min_max normalization of:", "details": []},
        ],
    }
    scores = normalized_scores(_hit(_explanation=explanation), ["bm25", "splade", "dense"])
    assert scores == ComponentScores(bm25=0.9, dense=0.5)


def test_no_explanation_means_no_normalised_scores() -> None:
    assert normalized_scores(_hit(), ["bm25", "dense"]) is None


def test_chunk_result_reads_the_source_fields() -> None:
    result = chunk_result(_hit(), reranked=False, components=["bm25", "dense"])
    assert (result.chunk_id, result.doc_id, result.start, result.end, result.score) == (
        "d1:chunk:0",
        "d1",
        5,
        12,
        0.8,
    )


def test_chunk_result_carries_the_stored_layout_of_a_pdf_chunk() -> None:
    box = {"page": 2, "x0": 56.7, "top": 88.1, "x1": 290.3, "bottom": 98.1}
    hit = _hit()
    hit["_source"] = {**hit["_source"], "layout": {"pages": [2], "boxes": [box]}}
    result = chunk_result(hit, reranked=False, components=["bm25"])
    assert result.layout == Layout(pages=[2], boxes=[LayoutBox(**box)])
    assert result.model_dump()["layout"] == {"pages": [2], "boxes": [box]}
    assert chunk_result(_hit(), reranked=False, components=["bm25"]).layout is None


def test_shard_counts_flag_an_answer_some_shards_missed() -> None:
    complete = ShardCounts.of({"_shards": {"total": 3, "successful": 3, "skipped": 0, "failed": 0}})
    skipped = ShardCounts.of({"_shards": {"total": 3, "successful": 2, "skipped": 1, "failed": 0}})
    failed = ShardCounts.of({"_shards": {"total": 3, "successful": 2, "skipped": 0, "failed": 1}})
    unanswered = ShardCounts.of({"_shards": {"total": 3, "successful": 2, "failed": 0}})
    assert (complete.partial, skipped.partial, failed.partial, unanswered.partial) == (
        False,
        False,
        True,
        True,
    )
    assert ShardCounts.of({}) == ShardCounts(total=0, successful=0, skipped=0, failed=0)
    assert not ShardCounts.of({}).partial
