"""The load benchmark's reading of locust's statistics, its sustainable-QPS rule and report (by hand)."""

from __future__ import annotations

import pytest

from benchmarks.run_stamp import RunStamp
from benchmarks.search_load.compute import LoadPoint, LoadRunError, parse_stats, sustainable
from benchmarks.search_load.report import Header, render_report

STATS = (
    "Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,"
    "Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,"
    "99.99%,100%\n"
    "POST,api hybrid-rrf,120,1,110,118.2,60,400,9000,4.0,0.03,110,120,130,140,170,210,260,300,400,400,400\n"
    ",Aggregated,120,1,110,118.2,60,400,9000,4.0,0.03,110,120,130,140,170,210,260,300,400,400,400\n"
)


def test_the_aggregated_row_is_the_point() -> None:
    assert parse_stats(STATS, "api", 4) == LoadPoint("api", 4, 120, 1, 4.0, 110.0, 210.0, 300.0)


def test_statistics_without_an_aggregated_row_are_an_error() -> None:
    with pytest.raises(LoadRunError, match="no Aggregated row"):
        parse_stats(STATS.splitlines()[0] + "\n", "api", 4)


POINTS = [
    LoadPoint("api", 1, 100, 0, 8.0, 120, 180, 200),
    LoadPoint("api", 4, 300, 0, 11.0, 350, 480, 520),
    LoadPoint("api", 16, 320, 0, 11.5, 1300, 1900, 2100),
    LoadPoint("direct-text", 1, 150, 0, 10.0, 95, 140, 160),
    LoadPoint("direct-text", 4, 400, 2, 14.0, 280, 400, 450),
    LoadPoint("direct-text", 16, 30, 30, 1.0, 5000, 9000, 9000),
]


def test_sustainable_is_the_fastest_point_under_the_bar_without_failures() -> None:
    best = sustainable(POINTS)
    assert best["api"] == POINTS[1]  # 16 clients is faster but its P95 is 1900 ms
    assert best["direct-text"] == POINTS[3]  # 4 clients had failures
    assert sustainable(POINTS[2:3]) == {"api": None}


def test_the_report_lists_every_point_and_the_sustainable_rate() -> None:
    header = Header(RunStamp("cmd", "host", "2026-11-23", 0.5, 3.0), "chunks-x", 30, "nfcorpus/dev")
    text = render_report(header, POINTS, "load.png")
    assert "| api | 4 | 300 | 0 | 11.0 | 350 | 480 | 520 |" in text
    assert "- api: 11.0 QPS at 4 clients (P95 480 ms)" in text
    assert "- direct-text: 10.0 QPS at 1 client (P95 140 ms)" in text
