"""Grouping texts into padded runs: order, batch cap and token budget."""

from __future__ import annotations

import pytest

from control_plane.models.tokenization import plan_runs


def test_runs_group_shortest_first_and_cover_every_index_once() -> None:
    lengths = [10, 3, 7, 3, 12]
    runs = plan_runs(lengths, max_batch=2, max_tokens=1000)
    assert runs == [[1, 3], [2, 0], [4]]
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))


def test_token_budget_counts_padding_to_the_longest_member() -> None:
    # 3 texts of 4 tokens fit a budget of 12 (3 × 4); adding a 5-token text would pad to 4 × 5 = 20.
    assert plan_runs([4, 4, 4, 5], max_batch=10, max_tokens=12) == [[0, 1, 2], [3]]


def test_a_text_over_the_budget_still_gets_its_own_run() -> None:
    assert plan_runs([2, 50], max_batch=8, max_tokens=16) == [[0], [1]]


def test_empty_input_plans_nothing() -> None:
    assert plan_runs([], max_batch=4, max_tokens=64) == []


@pytest.mark.parametrize(("max_batch", "max_tokens"), [(0, 10), (4, 0)])
def test_non_positive_limits_are_refused(max_batch: int, max_tokens: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        plan_runs([1], max_batch=max_batch, max_tokens=max_tokens)
