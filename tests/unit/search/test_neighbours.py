"""Neighbour merging on a hand-cut document: merged offsets and text, and each reason not to merge."""

from __future__ import annotations

import pytest

from control_plane.search.neighbours import ChunkHit, cosine, merge_neighbours, merged_token_estimate

CANON = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota."
SIMILAR = (0.96, 0.28)  # cosine with (1, 0) is 0.96


def _chunk(
    chunk_id: str,
    start: int,
    end: int,
    score: float,
    tokens: int = 5,
    embedding: tuple[float, ...] | None = (1.0, 0.0),
    doc_id: str = "d",
) -> ChunkHit:
    return ChunkHit(chunk_id, doc_id, score, start, end, CANON[start:end], tokens, embedding)


A = _chunk("d:0", 0, 17, 3.0)  # "Alpha beta gamma."
B = _chunk("d:1", 18, 37, 2.0, tokens=6, embedding=SIMILAR)  # "Delta epsilon zeta.", 1 char after A
E = _chunk("d:2", 38, 53, 1.0, tokens=4)  # "Eta theta iota."
OTHER = _chunk("o:0", 0, 17, 2.5, doc_id="o")


def test_adjacent_and_similar_merge_with_exact_offsets_and_text() -> None:
    merged, other = merge_neighbours([A, OTHER, B])
    assert other is OTHER
    assert (merged.chunk_id, merged.start, merged.end, merged.score) == ("d:0", 0, 37, 3.0)
    assert merged.text == CANON[0:37] == "Alpha beta gamma. Delta epsilon zeta."
    assert merged.merged_from == ("d:0", "d:1")
    assert merged.token_count == 11
    assert merged.embedding == pytest.approx((0.98, 0.14))


def test_similar_but_too_long_keeps_the_higher_score() -> None:
    long_a = _chunk("d:0", 0, 17, 3.0, tokens=500)
    long_b = _chunk("d:1", 18, 37, 2.0, tokens=400, embedding=SIMILAR)
    assert merge_neighbours([long_a, OTHER, long_b]) == [long_a, OTHER]
    assert merge_neighbours([long_a, long_b], max_tokens=900)[0].merged_from == ("d:0", "d:1")


def test_higher_score_later_in_the_ranking_takes_the_earlier_slot() -> None:
    low_first = _chunk("d:1", 18, 37, 2.0, embedding=(0.0, 1.0))
    assert merge_neighbours([low_first, OTHER, A]) == [A, OTHER]


def test_dissimilar_adjacent_keep_the_higher_score() -> None:
    unlike = _chunk("d:1", 18, 37, 2.0, embedding=(0.0, 1.0))
    assert merge_neighbours([A, unlike]) == [A]
    # cosine 0.96 does not exceed a threshold of 0.96
    assert merge_neighbours([A, B], min_cosine=0.96) == [A]


def test_missing_embedding_is_never_similar() -> None:
    blind = _chunk("d:1", 18, 37, 2.0, embedding=None)
    assert merge_neighbours([A, blind]) == [A]


def test_different_documents_never_merge() -> None:
    assert merge_neighbours([A, OTHER]) == [A, OTHER]


def test_gap_wider_than_max_gap_is_not_a_neighbour() -> None:
    far = _chunk("d:1", 24, 37, 2.0, embedding=SIMILAR)  # "epsilon zeta.", 7 characters after A
    assert merge_neighbours([A, far]) == [A, far]
    (merged,) = merge_neighbours([A, far], max_gap=7)
    # The gap's characters are unknown: spaces keep len(text) == end - start.
    assert (merged.start, merged.end, merged.text) == (0, 37, "Alpha beta gamma." + " " * 7 + "epsilon zeta.")


def test_overlapping_offsets_splice_the_later_tail() -> None:
    overlapping = _chunk("d:1", 11, 37, 2.0, tokens=7, embedding=SIMILAR)  # "gamma. Delta epsilon zeta."
    # 6 overlapping characters x (5 + 7) tokens / (17 + 26) characters = 1.674 tokens counted twice.
    assert merged_token_estimate(A, overlapping) == pytest.approx(12 - 6 * 12 / 43)
    (merged,) = merge_neighbours([overlapping, A])
    assert (merged.chunk_id, merged.start, merged.end, merged.score) == ("d:1", 0, 37, 3.0)
    assert merged.text == CANON[0:37]
    assert merged.merged_from == ("d:0", "d:1")
    assert merged.token_count == 10


def test_contained_chunk_adds_no_text() -> None:
    inner = _chunk("d:1", 6, 10, 2.0, tokens=1, embedding=SIMILAR)  # "beta"
    (merged,) = merge_neighbours([A, inner])
    assert (merged.start, merged.end, merged.text, merged.token_count) == (0, 17, A.text, 5)


def test_a_run_of_three_merges_into_one() -> None:
    (merged,) = merge_neighbours([B, A, E])
    assert (merged.chunk_id, merged.start, merged.end, merged.text) == ("d:1", 0, 53, CANON)
    assert merged.merged_from == ("d:0", "d:1", "d:2")
    assert merged.token_count == 15


def test_offsets_that_do_not_describe_the_text_are_never_neighbours() -> None:
    wrong = ChunkHit("d:1", "d", 2.0, 18, 37, "short", 2, SIMILAR)
    assert merge_neighbours([A, wrong]) == [A, wrong]


def test_cosine_and_arguments() -> None:
    assert cosine((1.0, 0.0), SIMILAR) == pytest.approx(0.96)
    assert cosine((0.0, 0.0), (1.0, 0.0)) == 0.0
    with pytest.raises(ValueError, match="dimension"):
        cosine((1.0,), (1.0, 0.0))
    with pytest.raises(ValueError, match="min_cosine"):
        merge_neighbours([A], min_cosine=1.5)
