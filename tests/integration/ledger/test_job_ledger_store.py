"""The ledger store on the real node: it creates its index from the strict ``jobs`` template, keeps one
document per job at its latest state, pages newest first, and a write OpenSearch refuses is counted
while the job it records goes on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from integration.names import session_index
from opensearchpy import OpenSearch
from prometheus_client import CollectorRegistry

from control_plane.config.settings import Settings
from control_plane.ledger.store import JobLedger
from control_plane.ledger.tracking import tracked

pytestmark = pytest.mark.integration


@pytest.fixture
def jobs_index(client: OpenSearch) -> Iterator[str]:
    name = session_index("store", prefix="jobs")
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def _ledger(client: OpenSearch, settings: Settings, index: str, registry: CollectorRegistry) -> JobLedger:
    chosen = settings.model_copy(update={"ledger": settings.ledger.model_copy(update={"index": index})})
    return JobLedger(client, chosen, registry)


def test_jobs_are_stored_at_their_latest_state_newest_first(
    client: OpenSearch, settings: Settings, jobs_index: str
) -> None:
    ledger = _ledger(client, settings, jobs_index, CollectorRegistry())
    first = tracked(ledger, "evaluation", "acme", "cli", lambda t: (t.job_id, {"query_count": 5}))
    with pytest.raises(RuntimeError, match="boom"):
        tracked(ledger, "ingest", "acme", "cli", lambda t: (_ for _ in ()).throw(RuntimeError("boom")))
    tracked(ledger, "ingest", "other", "api", lambda t: None)

    mapping = client.indices.get_mapping(index=jobs_index)[jobs_index]["mappings"]
    assert mapping["dynamic"] == "strict"
    page = ledger.list(tenant="acme")
    assert page.total == 2
    assert [(r.kind, r.state, r.reason) for r in page.jobs] == [
        ("ingest", "failed", "error"),
        ("evaluation", "done", None),
    ]
    assert page.jobs[0].error == "RuntimeError: boom"
    done = ledger.get(first[0])
    assert done is not None and done.state == "done" and done.duration_ms is not None
    assert ledger.get(first[0], tenant="other") is None
    assert [r.tenant_id for r in ledger.list(state="done").jobs] == ["other", "acme"]
    second_page = ledger.list(tenant="acme", offset=1, size=1)
    assert [r.kind for r in second_page.jobs] == ["evaluation"] and second_page.total == 2


def test_a_refused_write_is_counted_and_the_job_goes_on(client: OpenSearch, settings: Settings) -> None:
    # An index no job field fits (strict, outside the jobs* template): OpenSearch refuses every record.
    refused = session_index("ledger-refused")
    client.indices.create(index=refused, body={"mappings": {"dynamic": "strict", "properties": {}}})
    try:
        registry = CollectorRegistry()
        ledger = _ledger(client, settings, refused, registry)
        assert tracked(ledger, "model_registration", "default", "cli", lambda t: [1, 2]) == [1, 2]
        failures = registry.get_sample_value(
            "biohybrid_ledger_write_failures_total", {"kind": "model_registration"}
        )
        assert failures == 3  # queued, running, done
        assert client.count(index=refused)["count"] == 0
    finally:
        client.indices.delete(index=refused, ignore_unavailable=True)
