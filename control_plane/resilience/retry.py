"""A bounded retry of a call that may meet a transient cluster answer (``transient.py``): the direct
clients' and the control API's searches (``retry_search``: a search short of shards that left with a
node is asked again too), and ml-commons' writes with a narrower test. Bounded by a number of calls, so
a cluster that stays down is reported after a known wait, never retried forever."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from control_plane.errors import BiohybridError
from control_plane.resilience.policy import backoff_s
from control_plane.resilience.transient import is_transient, is_transient_partial

log = logging.getLogger(__name__)
T = TypeVar("T")

# Calls a direct search makes in all: waits of 0.5, 1 and 2 s cover a node leaving a cluster.
SEARCH_ATTEMPTS = 4


def retry_transient(
    call: Callable[[], T],
    *,
    what: str,
    attempts: int = SEARCH_ATTEMPTS,
    base_s: float = 0.5,
    transient: Callable[[BaseException], bool] = is_transient,
    within_s: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """``call()``, called again after a back-off while it fails ``transient``ly, ``attempts`` calls at
    most and, with ``within_s``, no wait that would end after ``within_s`` seconds from the first call
    (a caller with a latency budget: the control API). A failure that is not transient, and the last
    one, reach the caller unchanged."""
    calls = 0
    started = clock()
    while True:
        try:
            return call()
        except Exception as error:
            calls += 1
            if calls >= attempts or not transient(error):
                raise
            delay = backoff_s(calls - 1, base_s)
            if within_s is not None and clock() - started + delay >= within_s:
                raise
            log.warning(
                "transient cluster answer, retrying",
                extra={"call": what, "attempt": calls, "delay_s": delay, "error": str(error)[:300]},
            )
            sleep(delay)


class _ShortOfALeftNodeError(BiohybridError):
    """A search answer short of shards that left with a node mid-search (``is_transient_partial``)."""

    def __init__(self, answer: dict[str, Any]) -> None:
        failures = answer.get("_shards", {}).get("failures") or [{}]
        reason = failures[0].get("reason", {})
        super().__init__(f"partial answer: {len(failures)} shard(s) left with a node ({reason})")
        self.answer = answer


def _transient_or_left(error: BaseException) -> bool:
    return isinstance(error, _ShortOfALeftNodeError) or is_transient(error)


def retry_search(
    call: Callable[[], dict[str, Any]],
    *,
    what: str,
    attempts: int = SEARCH_ATTEMPTS,
    base_s: float = 0.5,
    within_s: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Any]:
    """A search's answer: ``retry_transient``, and asked again as well while the answer is short of
    shards whose node left mid-search (their other copies answer a moment later: a rolling restart
    then costs a wait, not a partial answer). When the attempts or the budget run out, the last answer
    is returned as it is, its ``_shards`` saying it is partial."""

    def whole() -> dict[str, Any]:
        answer = call()
        if is_transient_partial(answer):
            raise _ShortOfALeftNodeError(answer)
        return answer

    try:
        return retry_transient(
            whole,
            what=what,
            attempts=attempts,
            base_s=base_s,
            transient=_transient_or_left,
            within_s=within_s,
            sleep=sleep,
            clock=clock,
        )
    except _ShortOfALeftNodeError as short:
        return short.answer
