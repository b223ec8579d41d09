"""Per-key fair use with hand-computed figures (injectable clock): the bucket refills at the sustained
rate up to the burst, requests in progress are capped, and one key's use never counts against another."""

from __future__ import annotations

import pytest

from control_plane.api.limits import KeyLimiter, busy_cap
from control_plane.config.api_settings import BusyShare, KeyLimits
from control_plane.errors import RateLimitedError


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


LIMITS = KeyLimits(requests_per_s=2.0, burst=3, concurrent=2)


def test_the_burst_then_the_sustained_rate() -> None:
    clock = Clock()
    limiter = KeyLimiter(clock=clock)
    for _ in range(3):  # the burst: 3 at once (each released, so concurrency is not what limits)
        limiter.admit("k", LIMITS)
        limiter.release("k")
    with pytest.raises(RateLimitedError) as refused:
        limiter.admit("k", LIMITS)
    assert refused.value.retry_after_s == pytest.approx(0.5)  # one token at 2 per second
    assert "more than 2 requests per second (burst 3)" in str(refused.value)
    clock.now += 0.5
    limiter.admit("k", LIMITS)  # refilled exactly one
    limiter.release("k")
    clock.now += 10  # refills to the burst, not beyond
    for _ in range(3):
        limiter.admit("k", LIMITS)
        limiter.release("k")
    with pytest.raises(RateLimitedError):
        limiter.admit("k", LIMITS)


def test_requests_in_progress_are_capped_and_released() -> None:
    limiter = KeyLimiter(clock=Clock())
    limiter.admit("k", LIMITS)
    limiter.admit("k", LIMITS)
    with pytest.raises(RateLimitedError, match="2 requests in progress") as refused:
        limiter.admit("k", LIMITS)
    assert refused.value.retry_after_s == 1.0 and refused.value.http_status == 429
    limiter.release("k")
    assert limiter.in_progress("k") == 1
    limiter.admit("k", LIMITS)


def test_keys_are_counted_apart() -> None:
    limiter = KeyLimiter(clock=Clock())
    limiter.admit("a", LIMITS)
    limiter.admit("a", LIMITS)
    with pytest.raises(RateLimitedError):
        limiter.admit("a", LIMITS)
    limiter.admit("b", LIMITS)  # another key is untouched by a's use
    assert (limiter.in_progress("a"), limiter.in_progress("b")) == (2, 1)


def test_a_refused_request_takes_nothing() -> None:
    limiter = KeyLimiter(clock=Clock())
    limiter.admit("k", LIMITS)
    limiter.admit("k", LIMITS)
    for _ in range(5):
        with pytest.raises(RateLimitedError):
            limiter.admit("k", LIMITS)
    limiter.release("k")
    limiter.admit("k", LIMITS)  # the bucket still had its third token


CHARS = KeyLimits(question_chars_free=20, question_chars_per_s=100.0, question_chars_burst=400)


def test_question_characters_past_the_free_ones_are_a_bucket_of_their_own() -> None:
    clock = Clock()
    limiter = KeyLimiter(clock=clock)
    limiter.charge_question("k", "x" * 320, CHARS)  # 300 past the free 20: 100 left
    limiter.charge_question("k", "x" * 120, CHARS)  # 100 past: 0 left
    for _ in range(5):  # a question of at most the free characters costs nothing, even now
        limiter.charge_question("k", "x" * 20, CHARS)
    with pytest.raises(RateLimitedError) as refused:
        limiter.charge_question("k", "x" * 70, CHARS)
    assert refused.value.retry_after_s == pytest.approx(0.5)  # 50 characters at 100 per second
    assert (
        "more than 100 characters of long questions per second (those past the first 20 of each; burst "
        "400; this one has 70)" in str(refused.value)
    )
    assert "send questions of at most 20 characters" in str(refused.value)
    clock.now += 0.5
    limiter.charge_question("k", "x" * 70, CHARS)  # refilled exactly 50
    limiter.charge_question("other", "x" * 420, CHARS)  # another key's bucket is full


def test_a_question_costing_more_than_the_burst_waits_for_a_full_bucket_not_forever() -> None:
    clock = Clock()
    limiter = KeyLimiter(clock=clock)
    limiter.charge_question("k", "x" * 1000, CHARS)  # costs the whole burst
    with pytest.raises(RateLimitedError) as refused:
        limiter.charge_question("k", "x" * 1000, CHARS)
    assert refused.value.retry_after_s == pytest.approx(4.0)  # 400 characters at 100 per second
    clock.now += 4.0
    limiter.charge_question("k", "x" * 1000, CHARS)


def test_a_refused_question_takes_no_characters_and_requests_are_counted_apart() -> None:
    clock = Clock()
    limiter = KeyLimiter(clock=clock)
    limiter.charge_question("k", "x" * 370, CHARS)  # 350 past the free 20: 50 left
    for _ in range(3):
        with pytest.raises(RateLimitedError):
            limiter.charge_question("k", "x" * 80, CHARS)
    limiter.charge_question("k", "x" * 70, CHARS)  # the 50 left were not taken by the refusals
    limiter.admit("k", CHARS)  # the request bucket is untouched by characters


@pytest.mark.parametrize(
    ("own", "requests", "busy", "cap"),
    [(4, 2, 1, 4), (4, 2, 2, 1), (4, 8, 2, 4), (4, 8, 3, 2), (4, 2, 5, 1), (4, None, 3, 4)],
)
def test_a_busy_keys_cap_is_its_even_share_never_below_one(
    own: int, requests: int | None, busy: int, cap: int
) -> None:
    assert busy_cap(own, BusyShare(requests=requests), busy) == cap
    assert busy_cap(own, None, busy) == own


def test_while_another_key_is_busy_a_flooding_key_gets_its_share_only() -> None:
    """Alone, a key keeps its own 4; once another key is busy (a request in progress, or one ended
    within the window), each gets 2 // 2 = 1 in progress; after the window the first is alone again."""
    clock = Clock()
    limiter = KeyLimiter(clock=clock)
    own = KeyLimits(requests_per_s=100.0, burst=100, concurrent=4)
    share = BusyShare(requests=2, window_s=1.0)
    for _ in range(3):
        limiter.admit("flood", own, share)  # alone: up to its own 4
    limiter.admit("other", own, share)  # busy keys: 2, its share 1, it holds none
    with pytest.raises(RateLimitedError, match="1 other keys are busy: each gets 1 at once") as refused:
        limiter.admit("flood", own, share)
    assert refused.value.retry_after_s == 1.0
    limiter.release("other")
    clock.now += 0.5  # the other key asks one question after another: still busy between them
    with pytest.raises(RateLimitedError):
        limiter.admit("flood", own, share)
    for _ in range(3):
        limiter.release("flood")
    limiter.admit("flood", own, share)  # none in progress: its share of one
    limiter.release("flood")
    clock.now += 1.01  # the other key's last request ended past the window: alone again
    for _ in range(4):
        limiter.admit("flood", own, share)
    with pytest.raises(RateLimitedError, match="4 requests in progress, its limit"):
        limiter.admit("flood", own, share)


def test_no_share_leaves_each_key_its_own_limit() -> None:
    limiter = KeyLimiter(clock=Clock())
    own = KeyLimits(requests_per_s=100.0, burst=100, concurrent=2)
    limiter.admit("other", own, BusyShare(requests=None))
    for _ in range(2):
        limiter.admit("flood", own, BusyShare(requests=None))
    limiter.admit("third", own)
