"""A failed background job says why in one word: a model call's reason, else ``error``."""

from __future__ import annotations

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
