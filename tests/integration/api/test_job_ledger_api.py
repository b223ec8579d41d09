"""The job ledger and the lifecycle events through the control API, on the real stack: an ingest job's
record in the ``jobs`` index through its whole life (read by the API, also by a fresh app: the record
survives a restart), a job that fails (its inference service is not running) recorded as failed with the
reason, and the events a real HTTP receiver on loopback gets: job state changes, ingest stages, and
``retrieval.completed`` from real /v1/search calls (sample rate 1), parsed back with the cloudevents SDK."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cloudevents.core.base import BaseCloudEvent
from flask import Flask
from flask.testing import FlaskClient
from integration.api.stack import ApiStack, headers
from integration.events_receiver import Receiver, running_receiver
from integration.names import session_index
from integration.service import free_port
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.config.recording_settings import EventsSettings
from control_plane.config.settings import Settings
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.events.emitter import EventEmitter

pytestmark = pytest.mark.integration
DOCUMENTS = [
    {
        "_id": "ledger-1",
        "title": "Aspirin and bleeding",
        "text": "Low-dose aspirin raises gastrointestinal bleeding.",
    },
    {"_id": "ledger-2", "title": "Statins", "text": "Statin therapy can cause myopathy in older patients."},
]
STAGES = ["prepare", "load", "refresh"]


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture(scope="module")
def targets(client: OpenSearch) -> Iterator[tuple[str, str]]:
    """(the jobs index, the chunk index the jobs ingest into): this module's own."""
    jobs, chunks = session_index("ledger", prefix="jobs"), session_index("ledger")
    yield jobs, chunks
    client.indices.delete(index=f"{jobs},{chunks},{chunks}-*", ignore_unavailable=True)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ledger") / "corpus.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS), encoding="utf-8")
    return path


def _settings(stack: ApiStack, jobs: str, receiver: Receiver, **models: Any) -> Settings:
    base = stack.settings
    return base.model_copy(
        update={
            "ledger": base.ledger.model_copy(update={"index": jobs}),
            "events": EventsSettings(enabled=True, sink="http", url=receiver.url, search_sample_rate=1.0),
            # The ingest jobs encode through the stack's inference service (no models loaded here).
            "ingest": base.ingest.model_copy(update={"encoder": "service", "encode_attempts": 1}),
            "models": base.models.model_copy(update=models),
        }
    )


def _app(settings: Settings, client: OpenSearch) -> Flask:
    return create_app(settings, client, evaluation=load_evaluation_settings(environ={}))


@pytest.fixture(scope="module")
def app(stack: ApiStack, client: OpenSearch, targets: tuple[str, str], receiver: Receiver) -> Iterator[Flask]:
    built = _app(_settings(stack, targets[0], receiver), client)
    yield built
    built.extensions["biohybrid.events"].close()


def _events(app: Flask, receiver: Receiver, kind: str, subject: str | None = None) -> list[BaseCloudEvent]:
    emitter: EventEmitter = app.extensions["biohybrid.events"]
    assert emitter.flush(10)
    return [
        e
        for e in receiver.events()
        if e.get_type() == kind and (subject is None or e.get_subject() == subject)
    ]


def _finished(api: FlaskClient, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = dict(api.get(f"/v1/admin/jobs/{job_id}", headers=headers("a-admin")).get_json())
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not end within 60 s")


def _ingest(api: FlaskClient, corpus: Path, index: str) -> str:
    started = api.post(
        "/v1/admin/ingest", json={"sources": [str(corpus)], "index": index}, headers=headers("a-admin")
    )
    assert started.status_code == 202, started.get_json()
    assert started.get_json()["state"] in ("queued", "running")
    return str(started.get_json()["id"])


def test_an_ingest_job_is_recorded_through_its_life_and_survives_a_restart(
    app: Flask,
    stack: ApiStack,
    client: OpenSearch,
    targets: tuple[str, str],
    corpus: Path,
    receiver: Receiver,
) -> None:
    api = app.test_client()
    job_id = _ingest(api, corpus, targets[1])
    job = _finished(api, job_id)
    assert job["state"] == "done", job["error"]
    assert (job["result"]["documents"], job["result"]["index"]) == (2, targets[1])

    listed = api.get("/v1/admin/jobs?kind=ingest&size=5", headers=headers("a-admin")).get_json()
    assert listed["total"] == 1 and listed["size"] == 5
    [record] = listed["jobs"]
    assert (record["id"], record["job_id"], record["kind"], record["state"], record["origin"]) == (
        job_id,
        job_id,
        "ingest",
        "done",
        "api",
    )
    assert (record["tenant_id"], record["reason"], record["detail"]["index"]) == (
        "tenant-a",
        None,
        targets[1],
    )
    assert record["counts"]["documents"] == 2
    assert record["counts"]["chunks"] == job["result"]["chunks"] > 0
    assert record["queued_at"] <= record["started_at"] <= record["finished_at"]
    assert record["duration_ms"] > 0

    # A new app (a restart: an empty in-memory registry) reads the same record from the index.
    restarted = _app(
        stack.settings.model_copy(update={"ledger": app.extensions["biohybrid.ledger"].settings.ledger}),
        client,
    )
    again = restarted.test_client().get(f"/v1/admin/jobs/{job_id}", headers=headers("a-admin"))
    assert again.status_code == 200
    assert {k: again.get_json()[k] for k in ("state", "counts", "finished_at")} == {
        k: record[k] for k in ("state", "counts", "finished_at")
    }
    assert (
        restarted.test_client().get("/v1/admin/jobs/nosuchjob", headers=headers("a-admin")).status_code == 404
    )
    refused = api.get("/v1/admin/jobs?state=paused", headers=headers("a-admin"))
    assert refused.status_code == 400
    deep = api.get("/v1/admin/jobs?from=9990&size=20", headers=headers("a-admin"))  # issue 73: was a 502
    assert deep.status_code == 400 and "from + size is 10010" in deep.get_data(as_text=True)

    states = [e.get_data()["state"] for e in _events(app, receiver, "job.state.changed", job_id)]  # type: ignore[index]
    assert states == ["queued", "running", "done"]
    stages = [
        (e.get_type().rsplit(".", 1)[1], e.get_data()["stage"])  # type: ignore[index]
        for e in receiver.events()
        if e.get_type().startswith("ingest.stage.") and e.get_subject() == job_id
    ]
    assert stages == [(step, stage) for stage in STAGES for step in ("started", "completed")]
    [loaded] = [
        e
        for e in _events(app, receiver, "ingest.stage.completed", job_id)
        if e.get_data()["stage"] == "load"  # type: ignore[index]
    ]
    data = loaded.get_data()
    assert isinstance(data, dict)
    assert (data["tenant"], data["index"], data["job_id"]) == ("tenant-a", targets[1], job_id)
    assert (data["counts"]["documents"], data["counts"]["chunks"]) == (2, record["counts"]["chunks"])
    assert (loaded.get_specversion(), loaded.get_source()) == ("1.0", "/biohybrid/api")


def test_a_job_that_fails_is_recorded_with_its_reason(
    stack: ApiStack, client: OpenSearch, targets: tuple[str, str], corpus: Path, receiver: Receiver
) -> None:
    # Nothing listens on this port: the inference service of this app is not running.
    dead = _app(_settings(stack, targets[0], receiver, service_url=f"http://127.0.0.1:{free_port()}"), client)
    try:
        api = dead.test_client()
        # A fresh index: nothing stored yet, so every chunk must be encoded (unchanged ones would not be).
        job_id = _ingest(api, corpus, f"{targets[1]}-dead")
        job = _finished(api, job_id)
        assert job["state"] == "failed"
        record = api.get("/v1/admin/jobs?state=failed", headers=headers("a-admin")).get_json()["jobs"][0]
        assert (record["job_id"], record["state"], record["reason"]) == (job_id, "failed", job["reason"])
        assert record["reason"] == "unavailable"  # the service could not be reached
        assert record["error"] == job["error"][:2000] and record["finished_at"]
        [failure] = _events(dead, receiver, "ingest.stage.failed", job_id)
        assert failure.get_data()["stage"] == "load"  # type: ignore[index]
        assert failure.get_data()["reason"] == job["reason"]  # type: ignore[index]
        states = [e.get_data()["state"] for e in _events(dead, receiver, "job.state.changed", job_id)]  # type: ignore[index]
        assert states == ["queued", "running", "failed"]
    finally:
        dead.extensions["biohybrid.events"].close()


def test_searches_emit_retrieval_completed(app: Flask, receiver: Receiver) -> None:
    api = app.test_client()
    before = len(_events(app, receiver, "retrieval.completed"))
    answers = [
        api.get(f"/v1/search?q={query}&k=3", headers=headers("a-search")).get_json()
        for query in ("eligibility criteria for the trial", "adverse events of the treatment")
    ]
    events = _events(app, receiver, "retrieval.completed")[before:]
    assert len(events) == 2
    assert len({e.get_id() for e in events}) == 2
    for event, answer in zip(events, answers, strict=True):
        meta = answer["metadata"]
        data = event.get_data()
        assert isinstance(data, dict)
        assert (event.get_specversion(), event.get_source(), event.get_subject()) == (
            "1.0",
            "/biohybrid/api",
            "tenant-a",
        )
        assert data["tenant"] == "tenant-a"
        assert data["components_used"] == meta["components_used"]
        assert data["fusion_method"] == meta["fusion"]["method"]
        assert data["total_ms"] == meta["timings"]["total_ms"]
        assert data["durations_ms"]["encode"] == meta["timings"]["encode_ms"]
        assert data["result_count"] == len(answer["results"]) > 0
        assert set(data["contributions"]) == set(meta["components_used"])
        assert data["contributions"]["bm25"] == sum(
            1 for r in answer["results"] if r["component_scores"]["bm25"] is not None
        )
        assert "query" not in data
