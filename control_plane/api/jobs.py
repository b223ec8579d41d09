"""Long admin work (ingest, evaluate) runs in a background thread; clients poll its state by id.

This in-memory registry is the fast path for polling (it also holds the job's result); with a ledger every
state change is also written to the ``jobs`` index (control_plane/ledger/), the record that survives a
restart. A stopping API (SIGTERM) gives running jobs a grace period, then records each one still running
as failed with reason ``interrupted`` (an ingest submitted again resumes where it stopped) and abandons
its thread: :meth:`JobRegistry.stop`."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from control_plane.errors import BiohybridError
from control_plane.ingestion.stages import failure_reason
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


INTERRUPTED = "interrupted"


class JobInterruptedError(BiohybridError, RuntimeError):
    """The API stopped before the job ended; the message says what to do."""

    reason = INTERRUPTED


# The ledger's kind of each API job kind.
LEDGER_KINDS: dict[str, JobKind] = {"ingest": "ingest", "evaluate": "evaluation"}


class JobRegistry:
    def __init__(self, ledger: JobLedger | None = None) -> None:
        self._jobs: dict[str, Job] = {}
        self._running: dict[str, tuple[threading.Thread, JobTracker]] = {}
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
            with self._lock:
                if job.id not in self._running:
                    return  # stopped before it started: recorded as interrupted
                job.state = "running"
                tracker.running()
            # The ledger is written before the in-memory state changes: whoever saw the job end here
            # finds its end in the ledger too. An end after stop() recorded the job interrupted is not
            # recorded (the lock orders the two).
            try:
                result = work()
                with self._lock:
                    if self._running.pop(job.id, None) is not None:
                        tracker.done(counts_of(result))
                        job.result, job.state = result, "done"
            except Exception as exc:  # a job's failure is its state, reported to whoever polls
                log.exception("job failed", extra={"job": job.id, "kind": kind})
                with self._lock:
                    if self._running.pop(job.id, None) is not None:
                        self._fail(job, tracker, exc)
            finally:
                job.finished = job.finished or time.time()

        thread = threading.Thread(target=run, name=f"job-{kind}-{job.id}", daemon=True)
        with self._lock:
            self._running[job.id] = (thread, tracker)
        thread.start()
        return job

    def stop(self, grace_s: float) -> list[str]:
        """Wait up to ``grace_s`` for the running jobs to end, then record every one still running as
        failed (reason ``interrupted``) and abandon its thread. Returns the ids of the jobs interrupted:
        their threads may still be inside a model or OpenSearch call."""
        deadline = time.monotonic() + grace_s
        with self._lock:
            threads = [thread for thread, _ in self._running.values()]
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            left, self._running = self._running, {}
            for job_id, (_, tracker) in left.items():
                job = self._jobs[job_id]
                self._fail(
                    job,
                    tracker,
                    JobInterruptedError(
                        f"the control API stopped before this {job.kind} job ended (after a {grace_s:g} s "
                        "grace); submit it again (an ingest skips what it already wrote)"
                    ),
                )
                job.finished = time.time()
                log.warning("job interrupted by shutdown", extra={"job": job_id, "kind": job.kind})
        return sorted(left)

    @staticmethod
    def _fail(job: Job, tracker: JobTracker, exc: Exception) -> None:
        tracker.failed(exc)
        job.reason = failure_reason(exc)  # a model call's (control_plane/resilience/policy.py), else error
        job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)
