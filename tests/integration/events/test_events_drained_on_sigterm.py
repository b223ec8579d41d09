"""A real SIGTERM to a real control API process (`python -m control_plane.api`, lifecycle events to a
real receiver that takes a second per event): every event the process accepted reaches the receiver
before it exits, none is lost with the sender thread; a job still running (an ingest inside its models)
is recorded as interrupted and the process exits at once, neither aborting nor hanging (it did both:
ONNX Runtime inside an abandoned thread while the interpreter finalised)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from integration.events_receiver import running_receiver
from integration.names import session_index
from integration.service import free_port
from opensearchpy import OpenSearch

from control_plane.config.settings import LOCAL_FILE, Settings

pytestmark = pytest.mark.integration

KEY = "key-sigterm-s3cr3t"
HEADERS = {"X-API-Key": KEY}


@pytest.fixture
def indices(client: OpenSearch, applied: Settings) -> Iterator[tuple[str, str]]:
    """The process's jobs index and the chunk index its job names, deleted afterwards."""
    names = (session_index("sigterm", prefix="jobs"), session_index("sigterm"))
    yield names
    client.indices.delete(index=",".join(names), ignore_unavailable=True)


def _start_api(
    port: int, receiver_url: str, jobs_index: str, log: object, **environ: str
) -> subprocess.Popen[bytes]:
    key = {"sha256": hashlib.sha256(KEY.encode()).hexdigest(), "tenant": "sigterm", "role": "admin"}
    env = {
        **os.environ,
        "BIOHYBRID_CONFIG": str(LOCAL_FILE),
        "BIOHYBRID__EVENTS__ENABLED": "true",
        "BIOHYBRID__EVENTS__URL": receiver_url,
        "BIOHYBRID__EVENTS__TIMEOUT_S": "10",
        "BIOHYBRID__LEDGER__INDEX": jobs_index,
        "BIOHYBRID__API__KEYS": json.dumps([key]),
        # SIGABRT (sent when it does not exit in time) then prints every thread's stack to the log
        "PYTHONFAULTHANDLER": "1",
        **environ,
    }
    command = [sys.executable, "-m", "control_plane.api", "--port", str(port), "--log-format", "text"]
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)  # type: ignore[arg-type]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/health", timeout=1).ok:
                return process
        except requests.ConnectionError:
            time.sleep(0.2)
    process.kill()
    raise AssertionError("the control API did not answer /health within 60 s")


def _ended(url: str, job_id: str, timeout_s: float = 180.0) -> str:
    """The job's state once it ended (its worker thread is then idle), or the last one seen."""
    deadline, state = time.monotonic() + timeout_s, ""
    while time.monotonic() < deadline:
        state = str(
            requests.get(f"{url}/v1/admin/jobs/{job_id}", headers=HEADERS, timeout=10).json().get("state")
        )
        if state in {"done", "failed"}:
            break
        time.sleep(0.2)
    return state


def _submit_ingest(url: str, sources: list[str], index: str) -> str:
    body = {"sources": sources, "index": index}
    accepted = requests.post(f"{url}/v1/admin/ingest", json=body, headers=HEADERS, timeout=30)
    assert accepted.status_code == 202, accepted.text
    return str(accepted.json()["id"])


def _terminate(process: subprocess.Popen[bytes], log_path: Path) -> None:
    """SIGTERM, and the process exits with 0 within 60 s; if not, SIGABRT makes faulthandler write
    where each thread is into the log, which the failure shows."""
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        process.wait(timeout=30)
        raise AssertionError(f"no exit 60 s after SIGTERM:\n{log_path.read_text()[-8000:]}") from None
    assert code == 0, log_path.read_text()[-4000:]


def _job_states(receiver: Any, job_id: str) -> list[str]:
    """The states of the job's lifecycle events, in arrival order (its ingest stage events share the
    subject but carry no state)."""
    events = [e for e in receiver.events() if e.get_subject() == job_id]
    return [data["state"] for e in events if isinstance(data := e.get_data(), dict) and "state" in data]


def _dropped(metrics: str) -> float:
    lines = [ln for ln in metrics.splitlines() if ln.startswith("biohybrid_events_dropped_total{")]
    return sum(float(ln.split()[-1]) for ln in lines)


def test_every_accepted_event_is_sent_before_the_process_exits(
    indices: tuple[str, str], tmp_path: Path
) -> None:
    jobs_index, chunk_index = indices
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "api.log"
    with running_receiver(delay_s=1.0) as receiver, log_path.open("wb") as log:
        process = _start_api(port, receiver.url, jobs_index, log)
        try:
            # A job whose one source is no document (a missing path is refused at submission now): queued,
            # running, then done or failed at once, each a job.state.changed event.
            unreadable = tmp_path / "sigterm-test.txt"
            unreadable.write_text("not a document\n", encoding="utf-8")
            job_id = _submit_ingest(url, [str(unreadable)], chunk_index)
            assert _ended(url, job_id) in {"done", "failed"}, log_path.read_text()
            metrics = requests.get(f"{url}/metrics", timeout=10).text
            received_before = len(receiver.posts)
            _terminate(process, log_path)
        finally:
            if process.poll() is None:
                process.kill()
    assert _dropped(metrics) == 0, metrics
    states = _job_states(receiver, job_id)
    # every lifecycle event of the job, to its end (done or failed: what the drain is tested on)
    assert {"queued", "running"} <= set(states) and set(states) & {"done", "failed"}, (
        states,
        log_path.read_text(),
    )
    assert received_before < len(receiver.posts)  # events were still queued at the SIGTERM


def test_a_job_running_at_sigterm_is_recorded_interrupted_and_the_process_exits_cleanly(
    client: OpenSearch, indices: tuple[str, str], tmp_path: Path
) -> None:
    jobs_index, chunk_index = indices
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "api.log"
    with running_receiver(delay_s=0.2) as receiver, log_path.open("wb") as log:
        process = _start_api(port, receiver.url, jobs_index, log, BIOHYBRID__API__JOB_GRACE_S="1")
        try:
            # nfcorpus whole: minutes of encoding on this machine, so it is mid-flight at the SIGTERM
            job_id = _submit_ingest(url, ["nfcorpus"], chunk_index)
            deadline = time.monotonic() + 120
            while b"onnx session ready" not in log_path.read_bytes() and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(2.0)  # encoding the first batch
            job = requests.get(f"{url}/v1/admin/jobs/{job_id}", headers=HEADERS, timeout=10).json()
            assert job["state"] == "running", job
            _terminate(process, log_path)
        finally:
            if process.poll() is None:
                process.kill()
    client.indices.refresh(index=jobs_index)
    record = client.get(index=jobs_index, id=job_id)["_source"]
    assert (record["state"], record["reason"]) == ("failed", "interrupted"), record
    assert "job interrupted by shutdown" in log_path.read_text()
    states = _job_states(receiver, job_id)
    assert states[-1] == "failed" and "running" in states, states
