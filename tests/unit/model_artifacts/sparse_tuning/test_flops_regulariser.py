"""The FLOPS regulariser and its quadratic warm-up, with hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from model_artifacts.sparse_tuning.regulariser import flops, ramped


def test_flops_is_the_sum_of_squared_mean_weights_per_vocabulary_entry() -> None:
    weights = np.array([[1.0, 0.0, 2.0], [3.0, 0.0, 0.0]])
    # means per entry: 2, 0, 1 -> 4 + 0 + 1
    assert flops(weights) == pytest.approx(5.0)


def test_an_entry_every_text_uses_costs_more_than_the_same_mass_spread_over_entries() -> None:
    shared = np.array([[1.0, 0.0], [1.0, 0.0]])
    spread = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert flops(shared) == pytest.approx(1.0)
    assert flops(spread) == pytest.approx(0.5)


def test_the_weight_ramps_up_quadratically_then_holds() -> None:
    assert ramped(0.01, step=0, ramp_steps=4) == pytest.approx(0.01 / 16)
    assert ramped(0.01, step=1, ramp_steps=4) == pytest.approx(0.01 / 4)
    assert ramped(0.01, step=3, ramp_steps=4) == pytest.approx(0.01)
    assert ramped(0.01, step=100, ramp_steps=4) == pytest.approx(0.01)
    assert ramped(0.01, step=0, ramp_steps=0) == pytest.approx(0.01)
