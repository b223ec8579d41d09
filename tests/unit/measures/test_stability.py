"""Paraphrase pairs and stability measures against hand-computed values."""

from __future__ import annotations

import pytest

from control_plane.measures.stability import (
    PairRule,
    StabilityParameters,
    group_means,
    pair_group,
    paraphrase_pairs,
    per_pair,
    rbo,
    stability,
    topk_jaccard,
    within_pair_metric_variance,
    within_pair_variance_share,
    word_overlap,
)

QRELS = {
    "q1": {"d1": 1},
    "q2": {"d1": 1, "d9": 0},  # a non-relevant judgment does not change the relevant set
    "q3": {"d1": 2},  # grade 2 is relevant too: same set {d1}
    "q4": {"d2": 1},
    "q5": {"d2": 1},  # same words as q4 apart from case and punctuation: no pair
    "q6": {"d3": 0},
    "q7": {"d3": 0},  # empty relevant sets never pair
    "q8": {"d1": 1, "d2": 1},  # a different set: alone
    "q9": {"d4": 1},  # no text given: skipped
    "q10": {"d4": 1},
}
TEXTS = {
    "q1": "Aspirin prevents stroke.",
    "q2": "Stroke is prevented by aspirin",
    "q3": "ASA lowers stroke risk",
    "q4": "Statins, myopathy",
    "q5": "statins  MYOPATHY",
    "q6": "one",
    "q7": "two",
    "q8": "aspirin and statins",
    "q10": "lonely",
}


def test_pairs_share_a_nonempty_relevant_set_and_differ_in_words() -> None:
    assert paraphrase_pairs(QRELS, TEXTS) == [("q1", "q2"), ("q1", "q3"), ("q2", "q3")]


def test_cap_keeps_the_first_pairs_by_seeded_hash() -> None:
    # sha256('paraphrase-pairs-v1:q1:q2') starts 24a3..., ':q2:q3' 4894..., ':q1:q3' 5b79...
    assert paraphrase_pairs(QRELS, TEXTS, PairRule(max_pairs_per_set=1)) == [("q1", "q2")]
    assert paraphrase_pairs(QRELS, TEXTS, PairRule(max_pairs_per_set=2)) == [("q1", "q2"), ("q2", "q3")]


def test_bad_rule_is_refused_with_the_known_names() -> None:
    with pytest.raises(ValueError, match="known: same-relevant-set"):
        paraphrase_pairs(QRELS, TEXTS, PairRule(name="same-topic"))
    with pytest.raises(ValueError, match="max_pairs_per_set must be >= 1"):
        paraphrase_pairs(QRELS, TEXTS, PairRule(max_pairs_per_set=0))


def test_rule_description_names_cap_and_seed() -> None:
    text = PairRule(max_pairs_per_set=2, seed="s").describe()
    assert "at most 2 pairs per relevance set" in text and "sha256('s:<q1>:<q2>')" in text


def test_word_overlap_is_jaccard_of_lowercased_word_sets() -> None:
    # {aspirin, prevents, stroke} vs {stroke, is, prevented, by, aspirin}: 2 shared of 6
    assert word_overlap(TEXTS["q1"], TEXTS["q2"]) == pytest.approx(2 / 6)
    assert word_overlap(TEXTS["q4"], TEXTS["q5"]) == 1.0


def test_topk_jaccard() -> None:
    assert topk_jaccard(["a", "b", "c"], ["b", "c", "d"], k=3) == pytest.approx(2 / 4)
    assert topk_jaccard(["a", "b", "c"], ["b", "c", "d"], k=2) == pytest.approx(1 / 3)  # {a,b} vs {b,c}
    assert topk_jaccard([], [], k=10) == 1.0
    assert topk_jaccard(["a"], [], k=10) == 0.0


def test_rbo_swapped_pair() -> None:
    # X1 = 0, X2 = 2: (2/2)·0.81 + (0.1/0.9)·(0 + 1·0.81) = 0.81 + 0.09
    assert rbo(["a", "b"], ["b", "a"], p=0.9, depth=2) == pytest.approx(0.9)


def test_rbo_partial_overlap() -> None:
    # X1 = 1, X2 = 1, X3 = 2, p = 0.5: (2/3)·0.125 + 1·(1·0.5 + (1/2)·0.25 + (2/3)·0.125) = 19/24
    assert rbo(["a", "b", "c"], ["a", "c", "d"], p=0.5, depth=3) == pytest.approx(19 / 24)


def test_rbo_bounds_and_short_lists() -> None:
    ranking = [f"d{i}" for i in range(10)]
    assert rbo(ranking, ranking) == pytest.approx(1.0)
    assert rbo(ranking, [f"e{i}" for i in range(10)]) == 0.0
    # A list shorter than the depth: its missing ranks do not overlap. X1 = X2 = 1, p = 0.5:
    # (1/2)·0.25 + 1·(1·0.5 + (1/2)·0.25) = 0.75
    assert rbo(["a"], ["a"], p=0.5, depth=2) == pytest.approx(0.75)
    assert rbo([], []) == 1.0
    with pytest.raises(ValueError, match="persistence p"):
        rbo(["a"], ["a"], p=1.0)


def test_within_pair_variance_is_half_the_squared_difference() -> None:
    assert within_pair_metric_variance(0.8, 0.2) == pytest.approx(0.18)


RUN = {
    "q1": {"a": 3.0, "b": 2.0, "c": 1.0},
    "q2": {"a": 2.0, "b": 3.0, "d": 1.0},
    "q3": {"x": 1.0},
    "q4": {"y": 1.0},
}
NDCG = {"q1": 0.5, "q2": 0.3, "q3": 1.0, "q4": 0.0}
PAIRS = [("q1", "q2"), ("q3", "q4")]
TOP2 = StabilityParameters(k=2, p=0.9, depth=2)


def test_per_pair_values_follow_the_pairs() -> None:
    values = per_pair(PAIRS, RUN, NDCG, params=TOP2)
    # q1 ranks a, b; q2 ranks b, a (by score, not by insertion order)
    assert values["topk_jaccard"] == pytest.approx([1.0, 0.0])
    assert values["rbo"] == pytest.approx([0.9, 0.0])
    assert values["within_pair_metric_variance"] == pytest.approx([0.02, 0.5])
    assert values["mean_abs_metric_difference"] == pytest.approx([0.2, 1.0])


def test_stability_means_over_pairs() -> None:
    assert stability(PAIRS, RUN, NDCG, params=TOP2) == pytest.approx(
        {
            "topk_jaccard": 0.5,
            "rbo": 0.45,
            "within_pair_metric_variance": 0.26,
            "mean_abs_metric_difference": 0.6,
        }
    )


def test_a_query_missing_from_the_run_has_an_empty_ranking() -> None:
    values = per_pair([("q1", "q5")], RUN, {**NDCG, "q5": 0.0}, ["topk_jaccard", "rbo"])
    assert values == {"topk_jaccard": [0.0], "rbo": [0.0]}


def test_errors_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="no metric value for paired queries \\['q5'\\]"):
        per_pair([("q1", "q5")], RUN, NDCG)
    with pytest.raises(ValueError, match="unknown stability measure 'kendall'"):
        per_pair(PAIRS, RUN, NDCG, ["kendall"])
    with pytest.raises(ValueError, match="no paraphrase pairs"):
        stability([], RUN, NDCG)


def test_variance_share_compares_within_pair_with_total_variance() -> None:
    values = {"q1": 0.9, "q2": 0.7, "q3": 0.2, "q4": 0.0}
    # within: (0.02 + 0.02) / 2 = 0.02; total: mean 0.45, squares 0.2025 + 0.0625 + 0.0625 + 0.2025
    # = 0.53 over 3 -> share 0.02 / (0.53 / 3) = 6 / 53
    assert within_pair_variance_share(PAIRS, values) == pytest.approx(6 / 53)
    assert within_pair_variance_share(PAIRS, dict.fromkeys(values, 0.5)) == 0.0


def test_group_means_and_pair_group() -> None:
    assert group_means([1.0, 0.0, 0.5], ["s1", "s1", "s2"]) == {"s1": 0.5, "s2": 0.5}
    assert pair_group({"a": {"d2": 1, "d1": 1, "d3": 0}, "b": {}}, ("a", "b")) == "d1,d2"
    with pytest.raises(ValueError, match="differ in length"):
        group_means([1.0], [])
