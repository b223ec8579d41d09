"""The learning-rate factor both tuning runs share, by hand: linear warm-up, then a cosine to zero."""

from __future__ import annotations

import pytest

from model_artifacts.encoder_tuning.loop import warmup_cosine


def test_the_rate_warms_up_linearly_then_falls_along_a_cosine() -> None:
    assert warmup_cosine(0, warmup_steps=4, steps=12) == pytest.approx(0.25)
    assert warmup_cosine(3, warmup_steps=4, steps=12) == pytest.approx(1.0)
    assert warmup_cosine(4, warmup_steps=4, steps=12) == pytest.approx(1.0)  # cos 0
    assert warmup_cosine(8, warmup_steps=4, steps=12) == pytest.approx(0.5)  # halfway: cos π/2
    assert warmup_cosine(12, warmup_steps=4, steps=12) == pytest.approx(0.0)  # cos π


def test_no_warm_up_and_a_run_no_longer_than_it_do_not_divide_by_zero() -> None:
    assert warmup_cosine(0, warmup_steps=0, steps=0) == pytest.approx(1.0)
    assert warmup_cosine(5, warmup_steps=5, steps=5) == pytest.approx(1.0)
