"""What the ledger asks OpenSearch for a listing, and what a job event carries."""

from __future__ import annotations

from datetime import UTC, datetime

from control_plane.ledger.records import failed, queued, running
from control_plane.ledger.store import job_event_data, list_query


def test_a_listing_filters_by_what_is_given_newest_first() -> None:
    assert list_query("acme", "ingest", None, 40, 20) == {
        "from": 40,
        "size": 20,
        "track_total_hits": True,
        "query": {"bool": {"filter": [{"term": {"tenant_id": "acme"}}, {"term": {"kind": "ingest"}}]}},
        "sort": [{"queued_at": "desc"}, {"job_id": "desc"}],
    }
    assert list_query(None, None, "failed", 0, 5)["query"] == {
        "bool": {"filter": [{"term": {"state": "failed"}}]}
    }


def test_a_job_event_carries_the_record_without_the_error_text() -> None:
    at = datetime(2026, 11, 24, tzinfo=UTC)
    record = failed(
        running(queued("evaluation", "acme", "scheduler", job_id="j2", now=at), now=at),
        "error",
        "secret",
        now=at,
    )
    data = job_event_data(record)
    assert "error" not in data
    assert (data["job_id"], data["kind"], data["state"], data["reason"], data["origin"]) == (
        "j2",
        "evaluation",
        "failed",
        "error",
        "scheduler",
    )
