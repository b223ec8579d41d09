"""Long admin work (ingest, evaluate) runs in a background thread; clients poll its state by id."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


@dataclass
class Job:
    id: str
    kind: str
    tenant: str
    state: str = "running"  # running | done | failed
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


class JobRegistry:
    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def submit(self, kind: str, tenant: str, work: Callable[[], Any]) -> Job:
        job = Job(id=uuid.uuid4().hex[:12], kind=kind, tenant=tenant)
        with self._lock:
            self._jobs[job.id] = job

        def run() -> None:
            try:
                job.result = work()
                job.state = "done"
            except Exception as exc:  # a job's failure is its state, reported to whoever polls
                job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"
                reason = getattr(exc, "reason", None)  # a model call's (control_plane/resilience/policy.py)
                job.reason = reason if isinstance(reason, str) else "error"
                log.exception("job failed", extra={"job": job.id, "kind": kind})
            finally:
                job.finished = time.time()

        threading.Thread(target=run, name=f"job-{kind}-{job.id}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)
