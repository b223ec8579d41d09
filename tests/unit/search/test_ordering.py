"""$orderby over the fused list: stable, dates with missing ones last, score meaning the fused order."""

from __future__ import annotations

from control_plane.search.odata.expression import SortKey
from control_plane.search.ordering import ordered_chunks
from control_plane.search.postprocess import shape_results
from control_plane.search.results import ChunkResult
from control_plane.search.spec import SearchSpec

# Fused order a, b, c, d, e; dates: a 2019, b none, c 2021, d 2019, e 2020.
DATES = {"a": "2019-05-01", "b": None, "c": "2021-01-01", "d": "2019-05-01", "e": "2020-02-02"}
FUSED = [
    ChunkResult(chunk_id=name, doc_id=name, text=name, score=1.0 - i / 10, publication_date=DATES[name])
    for i, name in enumerate(DATES)
]


def ids(chunks: list[ChunkResult]) -> list[str]:
    return [c.chunk_id for c in chunks]


def test_no_keys_keep_the_fused_order() -> None:
    assert ids(ordered_chunks(FUSED, ())) == ["a", "b", "c", "d", "e"]


def test_dates_descending_ties_in_fused_order_undated_last() -> None:
    assert ids(ordered_chunks(FUSED, (SortKey("publication_date", "desc"),))) == ["c", "e", "a", "d", "b"]


def test_dates_ascending_undated_still_last() -> None:
    assert ids(ordered_chunks(FUSED, (SortKey("publication_date", "asc"),))) == ["a", "d", "e", "c", "b"]


def test_a_second_key_breaks_ties() -> None:
    keys = (SortKey("publication_date", "asc"), SortKey("score", "asc"))
    assert ids(ordered_chunks(FUSED, keys)) == ["d", "a", "e", "c", "b"]


def test_score_ascending_reverses_the_fused_order() -> None:
    assert ids(ordered_chunks(FUSED, (SortKey("score", "asc"),))) == ["e", "d", "c", "b", "a"]
    assert ids(ordered_chunks(FUSED, (SortKey("score", "desc"),))) == ["a", "b", "c", "d", "e"]


def test_pages_are_cut_after_ordering() -> None:
    spec = SearchSpec(query="q", size=2, from_=1, highlight=False, order_by="publication_date desc")
    assert ids(shape_results(FUSED, spec)) == ["e", "a"]  # type: ignore[arg-type]
