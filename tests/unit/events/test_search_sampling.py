"""A search emits when its draw falls below the sample rate; 0 never emits and 1 always does."""

from __future__ import annotations

from control_plane.config.recording_settings import EventsSettings
from control_plane.events.emitter import EventEmitter
from control_plane.events.sampling import sampled


def test_a_draw_below_the_rate_is_sampled() -> None:
    assert sampled(0.1, 0.0999)
    assert not sampled(0.1, 0.1)
    assert not sampled(0.1, 0.5)


def test_the_rate_bounds_ignore_the_draw() -> None:
    assert not sampled(0.0, 0.0)
    assert sampled(1.0, 0.9999)


def test_without_a_draw_the_rate_decides_about_that_share() -> None:
    hits = sum(sampled(0.25) for _ in range(4000))
    assert 800 < hits < 1200  # 1000 expected; the bounds are > 7 standard deviations wide


def test_a_disabled_emitter_samples_no_search() -> None:
    assert not EventEmitter(EventsSettings(search_sample_rate=1.0), "api").search_sampled(0.0)
