"""One job's trip through the ledger: queued when it is accepted, running when work starts, then done
with its counts or failed with a reason. ``tracked`` runs work synchronously (the CLI, the schedule);
the API's background jobs drive a ``JobTracker`` from their thread."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from control_plane.ingestion.stages import failure_reason
from control_plane.ledger.records import (
    JobKind,
    JobRecord,
    Origin,
    done,
    failed,
    numeric_counts,
    queued,
    running,
)
from control_plane.ledger.store import JobLedger

T = TypeVar("T")
CountsOf = Callable[[Any], Mapping[str, float]]


class JobTracker:
    """Holds the job's current record; each step writes it (a failed write is the ledger's problem)."""

    def __init__(self, ledger: JobLedger | None, record: JobRecord) -> None:
        self.ledger = ledger
        self.record = record
        self._save()

    @classmethod
    def open(
        cls,
        ledger: JobLedger | None,
        kind: JobKind,
        tenant: str,
        origin: Origin,
        detail: Mapping[str, Any] | None = None,
        job_id: str | None = None,
    ) -> JobTracker:
        return cls(ledger, queued(kind, tenant, origin, detail, job_id))

    @property
    def job_id(self) -> str:
        return self.record.job_id

    def _save(self) -> None:
        if self.ledger is not None:
            self.ledger.record(self.record)

    def running(self) -> None:
        self.record = running(self.record)
        self._save()

    def done(self, counts: Mapping[str, float]) -> None:
        self.record = done(self.record, counts)
        self._save()

    def failed(self, exc: BaseException, counts: Mapping[str, float] | None = None) -> None:
        self.record = failed(self.record, failure_reason(exc), f"{type(exc).__name__}: {exc}", counts)
        self._save()


def tracked(
    ledger: JobLedger | None,
    kind: JobKind,
    tenant: str,
    origin: Origin,
    work: Callable[[JobTracker], T],
    detail: Mapping[str, Any] | None = None,
    counts_of: CountsOf = numeric_counts,
) -> T:
    """Run ``work`` as a recorded job (queued, running, done | failed); its exception goes on."""
    tracker = JobTracker.open(ledger, kind, tenant, origin, detail)
    tracker.running()
    try:
        result = work(tracker)
    except BaseException as exc:
        tracker.failed(exc)
        raise
    tracker.done(counts_of(result))
    return result
