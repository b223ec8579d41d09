"""`biohybrid jobs`: its arguments, and one line per job."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from control_plane.cli.jobs import describe
from control_plane.cli.main import build_parser
from control_plane.ledger.records import done, failed, queued, running

T0 = datetime(2026, 11, 24, 9, 0, 0, tzinfo=UTC)


def test_list_takes_filters_and_a_page() -> None:
    args = build_parser().parse_args(
        ["jobs", "list", "--kind", "ingest", "--state", "failed", "--from", "20"]
    )
    assert (args.kind, args.state, args.offset, args.size, args.tenant) == ("ingest", "failed", 20, 20, None)
    assert build_parser().parse_args(["jobs", "show", "abc123"]).job_id == "abc123"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["jobs", "list", "--kind", "reindex"])


def test_a_line_per_job() -> None:
    started = running(queued("ingest", "acme", "cli", job_id="j1", now=T0), now=T0)
    ended = done(started, {"documents": 2, "chunks": 9.0}, now=T0 + timedelta(seconds=3))
    assert describe(ended) == (
        "j1             ingest             done                     acme         "
        "2026-11-24T09:00:00+00:00     3.0s chunks=9 documents=2"
    )
    broken = failed(started, "circuit_open", "x", now=T0)
    assert "failed(circuit_open)" in describe(broken)
