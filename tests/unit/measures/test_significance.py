"""Paired randomization test and Holm adjustment against hand-counted sign patterns."""

from __future__ import annotations

import itertools

import pytest

from control_plane.measures.significance import (
    holm_adjust,
    paired_randomization_test,
    paired_test_by_query,
)


def test_three_queries_all_better_is_two_patterns_of_eight() -> None:
    # differences 1, 2, 3: mean 2; only (+,+,+) and (-,-,-) reach |mean| >= 2 -> p = 2/8.
    test = paired_randomization_test([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    assert test.mean_difference == pytest.approx(2.0)
    assert test.p_value == pytest.approx(0.25)
    assert test.exact and test.n == 3


def test_one_worse_query_of_four() -> None:
    # differences +1, +1, +1, -1: mean 0.5, |sum| >= 2. Sums of four +-1 are -4..4; only the
    # C(4,2) = 6 patterns summing to 0 fall short -> p = 10/16.
    test = paired_randomization_test([0.2, 0.2, 0.2, 0.9], [1.2, 1.2, 1.2, -0.1])
    assert test.mean_difference == pytest.approx(0.5)
    assert test.p_value == pytest.approx(10 / 16)


def test_equal_runs_have_p_one() -> None:
    test = paired_randomization_test([0.3, 0.5], [0.3, 0.5])
    assert (test.mean_difference, test.p_value) == (0.0, 1.0)


def test_sampled_p_value_is_close_to_the_exact_one_and_reproducible() -> None:
    baseline = [0.0] * 14
    treatment = [0.30, 0.10, -0.05, 0.20, 0.00, 0.15, -0.10, 0.25, 0.05, 0.10, -0.20, 0.30, 0.05, 0.10]
    differences = [t - b for t, b in zip(treatment, baseline, strict=True)]
    observed = abs(sum(differences))
    patterns = list(itertools.product((1, -1), repeat=14))
    exact = sum(
        1
        for signs in patterns
        if abs(sum(s * d for s, d in zip(signs, differences, strict=True))) >= observed - 1e-12
    ) / len(patterns)
    full = paired_randomization_test(baseline, treatment, permutations=2**14)
    assert full.exact and full.p_value == pytest.approx(exact)
    sampled = paired_randomization_test(baseline, treatment, permutations=10000, seed=7)
    assert not sampled.exact
    assert sampled.p_value == pytest.approx(exact, abs=0.02)  # standard error ~0.005
    assert paired_randomization_test(baseline, treatment, permutations=10000, seed=7) == sampled


def test_unequal_lengths_and_empty_samples_are_refused() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        paired_randomization_test([0.1], [0.1, 0.2])
    with pytest.raises(ValueError, match="no paired values"):
        paired_randomization_test([], [])


def test_by_query_pairs_values_by_id_and_refuses_different_queries() -> None:
    test = paired_test_by_query({"q2": 0.0, "q1": 0.0, "q3": 0.0}, {"q3": 3.0, "q1": 1.0, "q2": 2.0})
    assert test.p_value == pytest.approx(0.25)
    with pytest.raises(ValueError, match="different queries"):
        paired_test_by_query({"q1": 0.1}, {"q2": 0.1})


def test_holm_multiplies_by_remaining_count_and_keeps_order() -> None:
    # sorted: a 0.01 * 3 = 0.03; c 0.03 * 2 = 0.06; b 0.04 * 1 = 0.04 -> raised to 0.06 (monotone).
    assert holm_adjust({"a": 0.01, "b": 0.04, "c": 0.03}) == pytest.approx({"a": 0.03, "b": 0.06, "c": 0.06})
    assert holm_adjust({"a": 0.6, "b": 0.7}) == pytest.approx({"a": 1.0, "b": 1.0})
