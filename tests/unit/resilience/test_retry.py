"""The bounded retry of transient cluster answers: again after a back-off, at most N calls; anything
else reaches the caller at once."""

from __future__ import annotations

import pytest
from opensearchpy.exceptions import TransportError
from unit.resilience.cluster_answers import (
    FETCH_NODE_DISCONNECTED,
    NO_INDEX,
    NO_SHARD_AVAILABLE,
    NULL_NODE,
    UNAVAILABLE_SHARDS,
    parsed,
    partial_answer,
    raised,
)

from control_plane.resilience.retry import retry_search, retry_transient


class Calls:
    """Answers a call gives in turn (an exception is raised), and the waits between them."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.made = 0
        self.waits: list[float] = []

    def __call__(self) -> object:
        self.made += 1
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_a_transient_answer_is_retried_until_the_call_succeeds() -> None:
    calls = Calls(raised(NULL_NODE), raised(UNAVAILABLE_SHARDS), {"hits": {"hits": []}})
    assert retry_transient(calls, what="search", sleep=calls.sleep) == {"hits": {"hits": []}}
    assert calls.made == 3
    assert calls.waits == [0.5, 1.0]


def test_it_gives_up_after_n_calls_with_the_last_answer() -> None:
    last = raised(NULL_NODE)
    calls = Calls(last)
    with pytest.raises(TransportError) as caught:
        retry_transient(calls, what="search", attempts=3, base_s=0.1, sleep=calls.sleep)
    assert caught.value is last
    assert calls.made == 3
    assert calls.waits == [0.1, 0.2]


def test_a_refused_request_is_raised_at_once() -> None:
    calls = Calls(raised(NO_INDEX))
    with pytest.raises(TransportError, match="index_not_found_exception"):
        retry_transient(calls, what="search", sleep=calls.sleep)
    assert (calls.made, calls.waits) == (1, [])


def test_a_narrower_test_retries_less() -> None:
    calls = Calls(raised(NULL_NODE), "answered")
    with pytest.raises(TransportError):
        retry_transient(calls, what="write", transient=lambda error: False, sleep=calls.sleep)
    assert calls.made == 1


class Clock:
    """A clock that moves only when the retry waits, plus ``per_call`` seconds a call."""

    def __init__(self, calls: Calls, per_call: float) -> None:
        self.calls, self.per_call = calls, per_call

    def __call__(self) -> float:
        return sum(self.calls.waits) + self.per_call * self.calls.made


def test_a_budget_stops_the_waits_that_would_overrun_it() -> None:
    last = raised(NULL_NODE)
    calls = Calls(last)
    # Calls of 0.2 s: 0.2 + wait 0.5 → 0.7 < 1.5; then 0.9 + wait 1.0 → 1.9 ≥ 1.5: no second wait.
    with pytest.raises(TransportError) as caught:
        retry_transient(calls, what="search", within_s=1.5, sleep=calls.sleep, clock=Clock(calls, 0.2))
    assert caught.value is last
    assert (calls.made, calls.waits) == (2, [0.5])


def test_a_budget_large_enough_leaves_the_count_to_bound_the_calls() -> None:
    calls = Calls(raised(NULL_NODE), raised(NULL_NODE), "answered")
    clock = Clock(calls, 0.1)
    assert retry_transient(calls, what="search", within_s=5.0, sleep=calls.sleep, clock=clock) == "answered"
    assert calls.waits == [0.5, 1.0]


def test_a_search_short_of_a_shard_whose_node_left_is_asked_again() -> None:
    whole = partial_answer()
    calls = Calls(partial_answer(FETCH_NODE_DISCONNECTED), raised(NULL_NODE), whole)
    assert retry_search(calls, what="search", sleep=calls.sleep) is whole
    assert calls.made == 3
    assert calls.waits == [0.5, 1.0]


def test_a_search_still_short_at_the_end_is_returned_as_partial() -> None:
    short = partial_answer(FETCH_NODE_DISCONNECTED)
    calls = Calls(short)
    assert retry_search(calls, what="search", attempts=3, sleep=calls.sleep) is short
    assert calls.made == 3


def test_a_search_short_of_a_shard_with_no_copy_is_returned_at_once() -> None:
    no_copy = {"shard": 0, "index": "chunks-solo", "reason": parsed(NO_SHARD_AVAILABLE)["error"]}
    short = partial_answer(no_copy)
    calls = Calls(short)
    assert retry_search(calls, what="search", sleep=calls.sleep) is short
    assert calls.made == 1 and calls.waits == []


def test_a_search_within_a_budget_keeps_the_partial_answer_when_the_wait_would_pass_it() -> None:
    short = partial_answer(FETCH_NODE_DISCONNECTED)
    calls = Calls(short, partial_answer())
    assert retry_search(calls, what="search", within_s=0.4, sleep=calls.sleep) is short
    assert calls.made == 1
