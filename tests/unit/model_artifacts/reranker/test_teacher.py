"""The fused ensemble as a teacher: each training passage's score, and a group's target distribution."""

from __future__ import annotations

import math

import numpy as np
import pytest

from model_artifacts.reranker.pairs import TrainQuery
from model_artifacts.reranker.teacher import group_loss, parse_teacher, teacher_record, teacher_targets


def test_teacher_targets_are_the_softmax_of_scores_over_the_temperature() -> None:
    # scores 0.5 and 0.4 at temperature 0.1: weights e^0 and e^-1, so 1/(1+e^-1) and e^-1/(1+e^-1).
    first, second = teacher_targets([0.5, 0.4], 0.1)
    assert first == pytest.approx(1 / (1 + math.exp(-1)))
    assert second == pytest.approx(math.exp(-1) / (1 + math.exp(-1)))


def test_teacher_targets_of_equal_scores_are_uniform_and_sum_to_one() -> None:
    assert teacher_targets([0.2, 0.2, 0.2, 0.2], 0.1) == pytest.approx((0.25,) * 4)


def test_teacher_targets_do_not_overflow_at_a_small_temperature() -> None:
    # 1.0 / 0.001 = e^1000 would overflow without the shift by the maximum
    assert teacher_targets([1.0, 0.0], 0.001) == pytest.approx((1.0, 0.0))


@pytest.mark.parametrize("temperature", [0.0, -0.1])
def test_teacher_targets_refuse_a_temperature_that_is_not_positive(temperature: float) -> None:
    with pytest.raises(ValueError, match="temperature"):
        teacher_targets([0.5], temperature)


def test_teacher_record_scores_every_positive_and_negative_and_zero_for_one_not_returned() -> None:
    query = TrainQuery("nfcorpus", "PLAIN-3", "statins", {"d1#0": 1}, ("d7#0", "d9#2"))
    record = teacher_record(query, {"d1#0": 0.8, "d7#0": 0.35, "other#0": 0.9})
    assert record == {"query_id": "PLAIN-3", "scores": {"d1#0": 0.8, "d7#0": 0.35, "d9#2": 0.0}}
    assert parse_teacher([record]) == {"PLAIN-3": {"d1#0": 0.8, "d7#0": 0.35, "d9#2": 0.0}}


def test_group_loss_adds_the_weighted_teacher_cross_entropy_and_nothing_without_a_teacher() -> None:
    log_probs = np.log(np.array([[0.5, 0.25, 0.25], [0.5, 0.25, 0.25]]))
    labels = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    teacher = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])  # the second group has no teacher
    # group 1: -ln 0.5 (labels) + 2 × -ln 0.25 (teacher) = ln 2 + 4 ln 2; group 2: ln 2 alone
    assert group_loss(log_probs, labels, teacher, 2.0) == pytest.approx([5 * math.log(2), math.log(2)])
    assert group_loss(log_probs, labels, teacher, 0.0) == pytest.approx([math.log(2), math.log(2)])
