"""Result shaping after OpenSearch answers: the page cut, document aggregation and neighbour merging work
on the API's ChunkResult itself (values checked by hand)."""

from __future__ import annotations

from typing import Any

from control_plane.search.postprocess import shape_results, source_side_fields
from control_plane.search.results import ChunkResult, DocumentResult, Layout, LayoutBox
from control_plane.search.spec import SearchSpec

CANON = "Warfarin raises bleeding risk. Dose by INR. Aspirin adds to it."


def _chunk(chunk_id: str, doc_id: str, score: float, start: int | None, end: int | None) -> ChunkResult:
    text = CANON[start:end] if start is not None else "no offsets"
    return ChunkResult(
        chunk_id=chunk_id, doc_id=doc_id, text=text, score=score, start=start, end=end, title_path=doc_id
    )


def _spec(**extra: Any) -> SearchSpec:
    return SearchSpec.model_validate({"query": "warfarin", "highlight": False, **extra})


A0 = _chunk("a:0", "a", 0.9, 0, 31)  # "Warfarin raises bleeding risk. "
B0 = _chunk("b:0", "b", 0.8, 0, 31)
A1 = _chunk("a:1", "a", 0.7, 31, 44)  # "Dose by INR. "


def test_the_page_is_cut_from_the_fused_list() -> None:
    assert shape_results([A0, B0, A1], _spec(size=2)) == [A0, B0]
    assert shape_results([A0, B0, A1], _spec(size=2, **{"from": 2})) == [A1]


def test_documents_group_the_result_chunks_themselves() -> None:
    documents = shape_results([A0, B0, A1], _spec(granularity="document"))
    assert documents == [
        DocumentResult(doc_id="a", score=0.9, title_path="a", chunks=[A0, A1]),
        DocumentResult(doc_id="b", score=0.8, title_path="b", chunks=[B0]),
    ]


def test_similar_neighbours_merge_into_the_better_ranked_result() -> None:
    embeddings = {"a:0": [1.0, 0.0], "a:1": [0.99, 0.1], "b:0": [0.0, 1.0]}
    tokens = {"a:0": 6, "a:1": 4, "b:0": 6}
    merged, other = shape_results([A0, B0, A1], _spec(merge_neighbours=True), embeddings, tokens)
    assert isinstance(merged, ChunkResult)
    assert (merged.chunk_id, merged.start, merged.end, merged.score) == ("a:0", 0, 44, 0.9)
    assert merged.text == CANON[0:44]
    assert merged.merged_from == ["a:0", "a:1"]
    assert other == B0


def test_a_merged_passage_keeps_the_boxes_of_all_its_members() -> None:
    def laid_out(chunk: ChunkResult, page: int, top: float) -> ChunkResult:
        box = LayoutBox(page=page, x0=50.0, top=top, x1=280.0, bottom=top + 10)
        return chunk.model_copy(update={"layout": Layout(pages=[page], boxes=[box])})

    first, second = laid_out(A0, 1, 700.0), laid_out(A1, 2, 60.0)
    embeddings = {"a:0": [1.0, 0.0], "a:1": [0.99, 0.1], "b:0": [0.0, 1.0]}
    merged, _ = shape_results(
        [second, B0, first], _spec(merge_neighbours=True), embeddings, {"a:0": 6, "a:1": 4, "b:0": 6}
    )
    assert isinstance(merged, ChunkResult) and merged.merged_from == ["a:0", "a:1"]
    assert merged.layout == Layout(pages=[1, 2], boxes=[*first.layout.boxes, *second.layout.boxes])  # type: ignore[union-attr]


def test_a_chunk_without_offsets_is_never_merged() -> None:
    loose = _chunk("a:9", "a", 0.5, None, None)
    embeddings = {"a:0": [1.0, 0.0], "a:9": [1.0, 0.0]}
    shaped = shape_results([A0, loose], _spec(merge_neighbours=True), embeddings, {"a:0": 6, "a:9": 2})
    assert shaped == [A0, loose]


def test_source_side_fields_read_embeddings_and_token_counts_by_chunk_id() -> None:
    hits = [
        {"_id": "x", "_source": {"chunk_id": "a:0", "embedding": [1, 2], "token_count": 7}},
        {"_id": "b:0", "_source": {}},
    ]
    assert source_side_fields(hits) == ({"a:0": [1.0, 2.0]}, {"a:0": 7})
