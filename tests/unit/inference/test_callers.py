"""Callers of the inference service kept apart: names read from the header (or a 400), metric labels that a
header cannot mint, each caller's share of the threads, and the count of requests in progress."""

from __future__ import annotations

import re

import pytest

from control_plane.inference.callers import (
    DEFAULT_RATES,
    UNNAMED,
    CallerLimiter,
    CallerRate,
    CallerRates,
    caller_limit,
    caller_name,
    metric_label,
    parse_rate,
    verified_caller,
)
from control_plane.inference.cli import build_parser, config_from_args
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


def test_every_name_the_project_does_not_know_counts_as_one_caller() -> None:
    """A header costs nothing to mint: "mine" and "yours" share the ``other`` allowance."""
    assert {metric_label(name) for name in ("mine", "yours", "x-1")} == {"other"}


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_rated_caller_gets_its_burst_then_one_request_per_token() -> None:
    clock = _Clock()
    rates = CallerRates({"other": CallerRate(per_s=2.0, burst=3)}, clock=clock)
    assert [rates.take("other") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert rates.take("other") == pytest.approx(0.5)  # empty: one token at 2/s is half a second away
    clock.now += 0.25
    assert rates.take("other") == pytest.approx(0.25)  # half a token back; a refusal takes none
    clock.now += 0.25
    assert rates.take("other") == 0.0
    assert [rates.take("api") for _ in range(100)] == [0.0] * 100  # no rate: never refused here


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("opensearch=50", ("opensearch", CallerRate(50.0, 100))),
        ("api=2.5:4", ("api", CallerRate(2.5, 4))),
        ("other=0.2", ("other", CallerRate(0.2, 1))),
        ("unnamed=off", ("unnamed", None)),
    ],
)
def test_a_rate_flag_is_name_rate_and_optional_burst(
    flag: str, expected: tuple[str, CallerRate | None]
) -> None:
    assert parse_rate(flag) == expected


@pytest.mark.parametrize(
    ("flag", "says"),
    [
        ("opensearch", "NAME=PER_S[:BURST]"),
        ("mine=5", "NAME one of"),
        ("api=fast", "could not convert"),
        ("api=0", "per_s > 0"),
        ("api=nan", "per_s > 0"),
        ("api=5:0", "burst ≥ 1"),
    ],
)
def test_a_bad_rate_flag_says_what_a_rate_is(flag: str, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        parse_rate(flag)


def test_the_service_cli_applies_rate_flags_over_the_defaults() -> None:
    args = build_parser().parse_args(["--caller-rate", "unnamed=off", "--caller-rate", "opensearch=80:100"])
    rates = config_from_args(args).caller_rates
    assert rates == {"other": DEFAULT_RATES["other"], "opensearch": CallerRate(80.0, 100)}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--caller-rate", "everyone=1"])


def test_a_project_callers_name_stands_only_when_proven() -> None:
    assert verified_caller("opensearch", proven=True) == "opensearch"
    assert verified_caller("opensearch", proven=False) == "other"  # a forged header gains nothing
    assert verified_caller("api", proven=False) == "other"
    assert verified_caller("unnamed", proven=False) == "unnamed"  # nothing claimed, nothing to prove
    assert verified_caller("other", proven=False) == "other"
