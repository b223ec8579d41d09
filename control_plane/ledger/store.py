"""The ``jobs`` index: write a job's record on every state change, read one back or list them.

The index is created from the ``jobs`` template's body on first use (as the eval-runs store does), so a
record never meets a dynamic mapping. ``record`` never fails the job: a write OpenSearch refuses is
logged and counted (``biohybrid_ledger_write_failures_total``); the job goes on.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch
from prometheus_client import CollectorRegistry, Counter

from control_plane.config.settings import Settings
from control_plane.events.building import JOB_STATE_CHANGED
from control_plane.events.emitter import EventEmitter
from control_plane.ledger.records import JobRecord, document, from_document
from control_plane.resources.catalog import ResourceKind, load_resources

log = logging.getLogger(__name__)
TEMPLATE_NAME = "jobs"
MAX_PAGE = 100


@dataclass(frozen=True)
class JobPage:
    total: int
    offset: int
    size: int
    jobs: list[JobRecord]


def job_event_data(record: JobRecord) -> dict[str, Any]:
    """The data of a job.state.changed event (pure): the record without its error text."""
    return {key: value for key, value in document(record).items() if key != "error"}


def list_query(
    tenant: str | None, kind: str | None, state: str | None, offset: int, size: int
) -> dict[str, Any]:
    """The search body of a listing (pure): filters, newest first, one page."""
    filters = [
        {"term": {field: value}}
        for field, value in (("tenant_id", tenant), ("kind", kind), ("state", state))
        if value is not None
    ]
    return {
        "from": offset,
        "size": size,
        "track_total_hits": True,
        "query": {"bool": {"filter": filters}},
        "sort": [{"queued_at": "desc"}, {"job_id": "desc"}],
    }


class JobLedger:
    def __init__(
        self,
        client: OpenSearch,
        settings: Settings,
        registry: CollectorRegistry | None = None,
        events: EventEmitter | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.index = settings.ledger.index
        self.events = events
        self.write_failures = Counter(
            "biohybrid_ledger_write_failures_total",
            "Job ledger writes that failed (the job went on; its record in the jobs index is stale)",
            ["kind"],
            registry=registry or CollectorRegistry(),
        )
        self._ready = False
        self._lock = threading.Lock()

    def ensure_index(self) -> None:
        """Create the index with the jobs template's settings and mappings if it does not exist."""
        with self._lock:
            if self._ready:
                return
            if not self.client.indices.exists(index=self.index):
                [template] = [
                    r
                    for r in load_resources(self.settings)
                    if r.kind is ResourceKind.INDEX_TEMPLATE and r.name == TEMPLATE_NAME
                ]
                self.client.indices.create(
                    index=self.index, body=template.body["template"], params={"ignore": 400}
                )
            self._ready = True

    def write(self, record: JobRecord) -> None:
        """Store the record (refreshed at once: jobs are few, and a listing right after must see it)."""
        self.ensure_index()
        self.client.index(
            index=self.index, id=record.job_id, body=document(record), params={"refresh": "true"}
        )

    def record(self, record: JobRecord) -> bool:
        """Write the record and announce the change; False (logged, counted) when the write failed."""
        if self.events is not None:
            self.events.emit(JOB_STATE_CHANGED, job_event_data(record), subject=record.job_id)
        try:
            self.write(record)
        except Exception as exc:  # the ledger observes jobs: it never fails one
            self.write_failures.labels(record.kind).inc()
            log.warning(
                "job ledger write failed",
                extra={"job": record.job_id, "state": record.state, "index": self.index, "error": str(exc)},
            )
            return False
        return True

    def get(self, job_id: str, tenant: str | None = None) -> JobRecord | None:
        """The job's latest record; None when absent or (with ``tenant``) another tenant's."""
        if not self.client.indices.exists(index=self.index):
            return None
        found = self.client.get(index=self.index, id=job_id, params={"ignore": 404})
        if not found.get("found"):
            return None
        record = from_document(found["_source"])
        return None if tenant is not None and record.tenant_id != tenant else record

    def list(
        self,
        tenant: str | None = None,
        kind: str | None = None,
        state: str | None = None,
        offset: int = 0,
        size: int = 20,
    ) -> JobPage:
        """One page of jobs, newest first, filtered by tenant, kind and state."""
        size = max(1, min(size, MAX_PAGE))
        if not self.client.indices.exists(index=self.index):
            return JobPage(0, offset, size, [])
        body = list_query(tenant, kind, state, offset, size)
        hits = self.client.search(index=self.index, body=body)["hits"]
        jobs = [from_document(hit["_source"]) for hit in hits["hits"]]
        return JobPage(int(hits["total"]["value"]), offset, size, jobs)
