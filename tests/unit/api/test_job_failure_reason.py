"""A failed background job says why in one word: a model call's reason, else ``error``."""

from __future__ import annotations

import threading
import time

from control_plane.api.jobs import Job, JobRegistry
from control_plane.resilience.policy import CircuitOpenError, GpuUnavailableError


def _finished(job: Job) -> Job:
    deadline = time.monotonic() + 5
    while job.finished is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return job


def _fail(exc: Exception) -> None:
    raise exc


def test_a_job_that_met_no_gpu_failed_for_that_reason() -> None:
    job = _finished(
        JobRegistry().submit("ingest", "t", lambda: _fail(GpuUnavailableError("bge-small", "CUDA")))
    )
    assert (job.state, job.reason) == ("failed", "gpu_unavailable")
    assert job.to_dict()["error"] == "GpuUnavailableError: gpu_unavailable: model 'bge-small': CUDA"


def test_other_failures_have_their_reason_or_error() -> None:
    registry = JobRegistry()
    opened = _finished(registry.submit("ingest", "t", lambda: _fail(CircuitOpenError("m", "3 in a row"))))
    broken = _finished(registry.submit("ingest", "t", lambda: _fail(ValueError("bad"))))
    done = _finished(registry.submit("ingest", "t", lambda: 1))
    assert [opened.reason, broken.reason, done.reason] == ["circuit_open", "error", None]
    assert done.to_dict()["state"] == "done"


def test_a_stopping_api_records_running_jobs_as_interrupted_and_keeps_ended_ones() -> None:
    registry = JobRegistry()
    release = threading.Event()
    quick = _finished(registry.submit("ingest", "t", lambda: 1))
    slow = registry.submit("ingest", "t", lambda: release.wait(10))
    brief = registry.submit("evaluate", "t", lambda: time.sleep(0.05))
    deadline = time.monotonic() + 5
    while slow.state != "running" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert registry.stop(grace_s=0.5) == [slow.id]  # brief ended within the grace
    assert (quick.state, brief.state) == ("done", "done")
    assert (slow.state, slow.reason) == ("failed", "interrupted")
    assert slow.error is not None and "submit it again" in slow.error and slow.finished is not None
    release.set()  # the abandoned thread ends later: its end does not overwrite the recorded one
    time.sleep(0.1)
    assert (slow.state, slow.result) == ("failed", None)
    assert registry.stop(grace_s=0) == []  # nothing left: idempotent
