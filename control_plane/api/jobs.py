"""Long admin work (ingest, evaluate) runs in a background thread; clients poll its state by id.

This in-memory registry is the fast path for polling (it also holds the job's result); with a ledger every
state change is also written to the ``jobs`` index (control_plane/ledger/), the record that survives a
restart."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from control_plane.ledger.records import JobKind, new_job_id, numeric_counts
from control_plane.ledger.store import JobLedger
from control_plane.ledger.tracking import CountsOf, JobTracker

log = logging.getLogger(__name__)


@dataclass
class Job:
    id: str
    kind: str
    tenant: str
    state: str = "queued"  # queued | running | done | failed
    started: float = field(default_factory=time.time)
    finished: float | None = None
    result: Any = None
    error: str | None = None
    reason: str | None = None
    """Why a failed job failed, in one word: gpu_unavailable, circuit_open, unavailable, error..."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "tenant": self.tenant,
            "state": self.state,
            "started": self.started,
            "finished": self.finished,
            "result": self.result,
            "error": self.error,
            "reason": self.reason,
        }


# The ledger's kind of each API job kind.
LEDGER_KINDS: dict[str, JobKind] = {"ingest": "ingest", "evaluate": "evaluation"}


class JobRegistry:
    def __init__(self, ledger: JobLedger | None = None) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self.ledger = ledger

    def submit(
        self,
        kind: str,
        tenant: str,
        work: Callable[[], Any],
        job_id: str | None = None,
        detail: dict[str, Any] | None = None,
        counts_of: CountsOf = numeric_counts,
    ) -> Job:
        """Start ``work`` in a thread; ``job_id`` when the work must know its id (e.g. in its events)."""
        job = Job(id=job_id or new_job_id(), kind=kind, tenant=tenant)
        with self._lock:
            self._jobs[job.id] = job
        tracker = JobTracker.open(self.ledger, LEDGER_KINDS[kind], tenant, "api", detail, job.id)

        def run() -> None:
            job.state = "running"
            tracker.running()
            # The ledger is written before the in-memory state changes: whoever saw the job end here
            # finds its end in the ledger too.
            try:
                result = work()
                tracker.done(counts_of(result))
                job.result, job.state = result, "done"
            except Exception as exc:  # a job's failure is its state, reported to whoever polls
                log.exception("job failed", extra={"job": job.id, "kind": kind})
                tracker.failed(exc)
                reason = getattr(exc, "reason", None)  # a model call's (control_plane/resilience/policy.py)
                job.reason = reason if isinstance(reason, str) else "error"
                job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"
            finally:
                job.finished = time.time()

        threading.Thread(target=run, name=f"job-{kind}-{job.id}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)
