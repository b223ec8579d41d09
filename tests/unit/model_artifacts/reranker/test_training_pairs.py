"""Training examples of the cross-encoder: gains, the leakage guard, mined negatives, groups, schedule."""

from __future__ import annotations

import numpy as np
import pytest

from model_artifacts.reranker.pairs import (
    LeakageGuard,
    TrainQuery,
    build_group,
    gain,
    group_rng,
    mine_negatives,
    normalise_query,
    positive_passages,
    retrieved_positives,
    schedule,
)


def _query(positives: dict[str, int], negatives: tuple[str, ...] = ()) -> TrainQuery:
    return TrainQuery("nfcorpus", "PLAIN-3", "breast cancer cholesterol", positives, negatives)


@pytest.mark.parametrize(("grade", "expected"), [(2, 2.0), (1, 1.0), (0, 0.0), (-1, 0.0)])
def test_gain_is_the_grade_as_the_linear_ndcg_uses_it(grade: int, expected: float) -> None:
    assert gain(grade) == expected


def test_normalised_query_is_lower_case_words() -> None:
    assert normalise_query("  Breast Cancer & Cholesterol!? ") == "breast cancer cholesterol"


def test_guard_refuses_held_out_ids_per_dataset_and_held_out_texts_anywhere() -> None:
    guard = LeakageGuard.from_queries("nfcorpus", {"PLAIN-1": "Breast Cancer & Cholesterol!"})
    assert not guard.allows("nfcorpus", "PLAIN-1", "a different text")
    assert not guard.allows("nfcorpus", "PLAIN-9", "breast cancer cholesterol")
    assert not guard.allows("medline", "12345", "Breast cancer: cholesterol.")
    assert guard.allows("scifact", "PLAIN-1", "another claim")  # ids are scoped by dataset
    assert guard.allows("nfcorpus", "PLAIN-2", "Breast cancer")


def test_positive_passages_are_every_chunk_of_every_relevant_document() -> None:
    passages_of = {"d1": ["d1:0", "d1:1"], "d2": ["d2:0"], "d3": ["d3:0"]}
    judged = {"d2": 2, "d1": 1, "d3": 0, "unindexed": 1}
    assert positive_passages(judged, passages_of) == {"d1:0": 1, "d1:1": 1, "d2:0": 2}


def test_retrieved_positives_are_only_the_judged_passages_the_first_stage_returned() -> None:
    ranked = ["a:1", "b:0", "c:0", "a:0"]
    doc_of = {p: p.split(":")[0] for p in [*ranked, "d:0"]}
    judged = {"a": 2, "c": 0, "d": 1}  # d is relevant but never retrieved; c is judged non-relevant
    assert retrieved_positives(ranked, doc_of, judged) == {"a:1": 2, "a:0": 2}
    assert retrieved_positives([], doc_of, judged) == {}


def test_mined_negatives_skip_relevant_documents_and_duplicates_in_rank_order() -> None:
    ranked = ["a:0", "b:0", "a:1", "c:0", "b:0", "d:0", "e:0"]
    doc_of = {p: p.split(":")[0] for p in ranked}
    judged = {"a": 1, "c": 0}  # c is judged non-relevant: still a negative
    assert mine_negatives(ranked, doc_of, judged, limit=3) == ("b:0", "c:0", "d:0")


def test_group_holds_the_positive_first_then_distinct_mined_negatives() -> None:
    query = _query({"p1": 1}, ("n1", "n2", "n3", "n4"))
    group = build_group(query, 3, group_rng(13, 0, 0), pool=[])
    assert group.passage_ids[0] == "p1"
    assert len(set(group.passage_ids[1:])) == 2 and set(group.passage_ids[1:]) <= {"n1", "n2", "n3", "n4"}
    assert group.targets == (1.0, 0.0, 0.0)


def test_a_mined_negative_that_is_a_positive_is_never_used_as_one() -> None:
    query = _query({"p1": 1, "p2": 1}, ("p2", "n1"))
    for seed in range(20):
        group = build_group(query, 2, group_rng(seed, 0, 0), pool=[])
        assert group.passage_ids[1] == "n1"


def test_graded_group_adds_a_lower_graded_positive_with_proportional_targets() -> None:
    query = _query({"a": 2, "b": 1}, ("n1", "n2", "n3"))
    firsts = []
    for seed in range(300):
        group = build_group(query, 4, group_rng(seed, 0, 0), pool=[])
        firsts.append(group.passage_ids[0])
        if group.passage_ids[0] == "a":
            assert group.passage_ids[1] == "b"
            assert group.targets == pytest.approx((2 / 3, 1 / 3, 0.0, 0.0))
        else:
            assert group.passage_ids[0] == "b" and "a" not in group.passage_ids
            assert group.targets == (1.0, 0.0, 0.0, 0.0)
    # positives are drawn with probability ∝ gain: 2/3 for "a"
    assert 0.58 < firsts.count("a") / len(firsts) < 0.75


def test_group_is_topped_up_from_the_pool_without_positives() -> None:
    query = _query({"p1": 1}, ())
    group = build_group(query, 3, group_rng(1, 2, 3), pool=["p1", "x", "y", "z"])
    assert group.passage_ids[0] == "p1"
    assert set(group.passage_ids[1:]) <= {"x", "y", "z"} and len(set(group.passage_ids)) == 3


def test_group_refuses_too_small_a_pool_no_positive_and_size_below_two() -> None:
    with pytest.raises(ValueError, match="2 more negatives needed, 1 in the pool"):
        build_group(_query({"p1": 1}), 3, group_rng(0, 0, 0), pool=["p1", "x"])
    with pytest.raises(ValueError, match="no positive passage"):
        build_group(_query({}), 3, group_rng(0, 0, 0), pool=["x", "y"])
    with pytest.raises(ValueError, match="group size must be ≥ 2"):
        build_group(_query({"p1": 1}), 1, group_rng(0, 0, 0), pool=["x"])


def test_group_depends_only_on_seed_step_and_slot() -> None:
    query = _query({"p1": 1}, tuple(f"n{i}" for i in range(30)))
    first = build_group(query, 6, group_rng(13, 7, 2), pool=[])
    again = build_group(query, 6, group_rng(13, 7, 2), pool=[])
    other = build_group(query, 6, group_rng(13, 7, 3), pool=[])
    assert first == again and first != other


def test_schedule_visits_every_query_once_before_repeating() -> None:
    names, plan = schedule({"a": 3, "b": 2}, {"a": 1.0, "b": 0.0}, steps=2, batch=3, seed=5)
    assert names == ("a",) and plan.shape == (2, 3, 2)
    assert (plan[:, :, 0] == 0).all()
    assert sorted(plan[0, :, 1]) == [0, 1, 2] and sorted(plan[1, :, 1]) == [0, 1, 2]


def test_schedule_is_reproducible_and_follows_the_weights() -> None:
    args = ({"a": 50, "b": 40}, {"a": 0.75, "b": 0.25}, 200, 5, 11)
    names, plan = schedule(*args)
    _, again = schedule(*args)
    assert np.array_equal(plan, again)
    share_a = float((plan[:, :, 0] == names.index("a")).mean())
    assert 0.7 < share_a < 0.8


def test_schedule_refuses_a_weighted_source_without_queries_and_no_weights() -> None:
    with pytest.raises(ValueError, match=r"\['b'\] have a positive weight but no training queries"):
        schedule({"a": 3, "b": 0}, {"a": 1.0, "b": 0.5}, 1, 1, 0)
    with pytest.raises(ValueError, match="no source has a positive weight"):
        schedule({"a": 3}, {"a": 0.0}, 1, 1, 0)


def test_train_query_survives_its_json_form() -> None:
    query = _query({"d1:0": 2, "d2:0": 1}, ("n1", "n2"))
    assert TrainQuery.from_json(query.to_json()) == query
