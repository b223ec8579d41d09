"""Callers of the inference service kept apart: names read from the header (or a 400), metric labels that a
header cannot mint, each caller's share of the threads, and the count of requests in progress."""

from __future__ import annotations

import pytest

from control_plane.inference.callers import (
    UNNAMED,
    CallerLimiter,
    caller_limit,
    caller_name,
    metric_label,
)
from control_plane.inference.validation import RequestError


@pytest.mark.parametrize(
    ("header", "name"), [(None, UNNAMED), ("", UNNAMED), ("api", "api"), ("ingest-2", "ingest-2")]
)
def test_a_caller_is_named_by_its_header_or_unnamed(header: str | None, name: str) -> None:
    assert caller_name(header) == name


@pytest.mark.parametrize("header", ["API", "-api", "a" * 33, "api key", "api\u00e9"])
def test_a_header_that_is_no_caller_name_is_a_400_saying_what_a_name_is(header: str) -> None:
    with pytest.raises(RequestError) as refused:
        caller_name(header)
    assert refused.value.status == 400
    assert (
        "X-Biohybrid-Caller" in refused.value.message
        and "1 to 32 lower-case letters" in refused.value.message
    )


def test_metric_labels_are_the_known_callers_or_other() -> None:
    assert [metric_label(c) for c in ("api", "ingest", "opensearch", UNNAMED, "mine")] == [
        "api",
        "ingest",
        "opensearch",
        "unnamed",
        "other",
    ]


@pytest.mark.parametrize(
    ("threads", "share", "limit"), [(24, 0.75, 18), (16, 0.75, 12), (2, 0.5, 1), (1, 0.1, 1)]
)
def test_a_callers_limit_is_its_share_of_the_threads_at_least_one(
    threads: int, share: float, limit: int
) -> None:
    assert caller_limit(threads, share) == limit


def test_each_caller_holds_at_most_the_limit_and_callers_are_counted_apart() -> None:
    limiter = CallerLimiter(limit=2)
    assert limiter.enter("opensearch") and limiter.enter("opensearch")
    assert not limiter.enter("opensearch")  # a third refused, and not counted
    assert limiter.in_progress("opensearch") == 2
    assert limiter.enter("api")  # another caller is untouched
    limiter.leave("opensearch")
    assert limiter.enter("opensearch")
    for _ in range(2):
        limiter.leave("opensearch")
    limiter.leave("api")
    assert (limiter.in_progress("opensearch"), limiter.in_progress("api")) == (0, 0)
    assert limiter._in_progress == {}  # a caller with nothing in progress costs nothing
