import pytest

from control_plane.fusion.rrf import order_by_score_then_rank, rrf_scores

BM25 = ["d1", "d2", "d3"]
SPLADE = ["d2", "d1", "d4"]
DENSE = ["d1", "d4", "d2"]


def test_spec_case_hand_computed() -> None:
    scores = rrf_scores([BM25, SPLADE, DENSE], rank_constant=60)
    # d1: 1/61 + 1/62 + 1/61 = 0.016393 + 0.016129 + 0.016393 = 0.048915
    assert scores["d1"] == pytest.approx(1 / 61 + 1 / 62 + 1 / 61)
    # d2: 1/62 + 1/61 + 1/63 = 0.016129 + 0.016393 + 0.015873 = 0.048395
    assert scores["d2"] == pytest.approx(1 / 62 + 1 / 61 + 1 / 63)
    # d4: 1/63 + 1/62 = 0.032002 ; d3: 1/63 = 0.015873
    assert scores["d4"] == pytest.approx(1 / 63 + 1 / 62)
    assert scores["d3"] == pytest.approx(1 / 63)
    assert {d: round(s, 3) for d, s in scores.items()} == {"d1": 0.049, "d2": 0.048, "d4": 0.032, "d3": 0.016}
    assert order_by_score_then_rank(scores, BM25) == ["d1", "d2", "d4", "d3"]


def test_ties_follow_the_bm25_rank() -> None:
    # x: bm25 rank 1 + dense rank 2; y: bm25 rank 2 + dense rank 1 -> both 1/61 + 1/62.
    scores = rrf_scores([["x", "y"], ["y", "x"]])
    assert scores["x"] == pytest.approx(scores["y"])
    assert order_by_score_then_rank(scores, ["x", "y"]) == ["x", "y"]
    assert order_by_score_then_rank(scores, ["y", "x"]) == ["y", "x"]


def test_float32_rounding_still_counts_as_a_tie() -> None:
    scores = {"a": 0.032522473, "b": 0.0325224735}
    assert order_by_score_then_rank(scores, ["a", "b"]) == ["a", "b"]


def test_ties_absent_from_bm25_come_last_then_by_id() -> None:
    # Three documents each found once at rank 1 of a different list: all 1/61.
    scores = rrf_scores([["b"], ["z"], ["a"]])
    assert order_by_score_then_rank(scores, ["b"]) == ["b", "a", "z"]


def test_rank_constant_changes_scores() -> None:
    assert rrf_scores([["a"]], rank_constant=1)["a"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="rank_constant"):
        rrf_scores([["a"]], rank_constant=0)


def test_weighted_rrf_hand_computed() -> None:
    # Weights 0.5/0.2/0.3 on BM25/SPLADE/DENSE, k = 60.
    scores = rrf_scores([BM25, SPLADE, DENSE], rank_constant=60, weights=[0.5, 0.2, 0.3])
    # d1: 0.5/61 + 0.2/62 + 0.3/61 = 0.0081967 + 0.0032258 + 0.0049180 = 0.0163406
    assert scores["d1"] == pytest.approx(0.5 / 61 + 0.2 / 62 + 0.3 / 61)
    assert round(scores["d1"], 6) == 0.016341
    # d4: 0.2/63 + 0.3/62 = 0.0031746 + 0.0048387 = 0.0080133
    assert round(scores["d4"], 6) == 0.008013
    # d3: 0.5/63 = 0.0079365, now below d4 (classic RRF: d4 0.032 vs d3 0.016 either way)
    assert round(scores["d3"], 6) == 0.007937


def test_a_zero_weight_ranking_decides_nothing() -> None:
    # "b" is found only by the second ranking, whose weight is 0.
    scores = rrf_scores([["a"], ["b", "a"]], weights=[1.0, 0.0])
    assert scores == {"a": pytest.approx(1 / 61), "b": 0.0}


def test_equal_weights_keep_the_classic_order() -> None:
    classic = rrf_scores([BM25, SPLADE, DENSE])
    third = rrf_scores([BM25, SPLADE, DENSE], weights=[1 / 3, 1 / 3, 1 / 3])
    assert order_by_score_then_rank(third, BM25) == order_by_score_then_rank(classic, BM25)
    assert third["d1"] == pytest.approx(classic["d1"] / 3)


def test_one_weight_per_ranking() -> None:
    with pytest.raises(ValueError, match="2 weights for 3 rankings"):
        rrf_scores([BM25, SPLADE, DENSE], weights=[0.5, 0.5])
