"""Ingest through the inference service (``ingest.encoder: service``) when its model calls fail, made to
fail by the service's own fault switch: a GPU-bound model gets one attempt and the job fails with
``gpu_unavailable`` (the admin API's job and the CLI's exit code); other models are retried, and their
breaker, shared by the API's jobs, fails later jobs fast until a probe after the reset timeout."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from integration.fault_switch import arm, requests_reached
from integration.names import session_index
from integration.resilience.resilience_settings import ADMIN_KEY, api_settings
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.cli.common import EXIT_MODEL
from control_plane.cli.main import main
from control_plane.config.models_settings import ModelsSettings
from control_plane.config.settings import ENV_CONFIG_FILE, LOCAL_FILE, Settings
from control_plane.evaluation.settings import load_evaluation_settings

pytestmark = pytest.mark.integration
SERVICE_PATH = {"BIOHYBRID__INGEST__ENCODER": "service", "BIOHYBRID__INGEST__ENCODE_BACKOFF_S": "0.05"}
DOCUMENT = {
    "_id": "resilience-1",
    "title": "Aspirin and bleeding",
    "text": "Low-dose aspirin lowers the risk of myocardial infarction and raises gastrointestinal bleeding.",
}

DENSE = ModelsSettings().dense  # the default dense model: the one these paths call


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps(DOCUMENT) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def index(client: OpenSearch, applied: Settings) -> Iterator[str]:
    name = session_index("resilience")
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def _admin(settings: Settings, client: OpenSearch) -> FlaskClient:
    return create_app(settings, client, evaluation=load_evaluation_settings(environ={})).test_client()


def _ingest_job(api: FlaskClient, source: Path, index: str) -> dict[str, Any]:
    """Run an ingest job through the admin API and wait for its end."""
    headers = {"X-API-Key": ADMIN_KEY}
    started = api.post("/v1/admin/ingest", json={"sources": [str(source)], "index": index}, headers=headers)
    assert started.status_code == 202, started.get_json()
    job_id = started.get_json()["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = dict(api.get(f"/v1/admin/jobs/{job_id}", headers=headers).get_json())
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"ingest job {job_id} still running after 60 s")


def _dense_calls(url: str) -> int:
    return sum(requests_reached(url, "embeddings", DENSE).values())


def test_a_gpu_bound_model_that_fails_on_the_gpu_fails_the_job_after_one_attempt(
    service_url: str, client: OpenSearch, source: Path, index: str
) -> None:
    settings = api_settings(service_url, **SERVICE_PATH, BIOHYBRID__MODELS__GPU_BOUND="[dense]")
    arm(service_url, 3, status=503, message="CUDA out of memory", endpoints=["embeddings"])
    before = _dense_calls(service_url)
    job = _ingest_job(_admin(settings, client), source, index)
    assert (job["state"], job["reason"]) == ("failed", "gpu_unavailable")
    assert "CUDA out of memory" in job["error"] and "not retried" in job["error"]
    assert _dense_calls(service_url) == before + 1  # one attempt, no retry


def test_a_gpu_bound_model_the_service_runs_on_cpu_fails_the_job(
    service_url: str, client: OpenSearch, source: Path, index: str
) -> None:
    settings = api_settings(service_url, **SERVICE_PATH, BIOHYBRID__MODELS__GPU_BOUND="[dense]")
    job = _ingest_job(_admin(settings, client), source, index)
    if job["state"] == "done":
        pytest.skip(f"the inference service runs {DENSE} on a GPU here")
    assert (job["state"], job["reason"]) == ("failed", "gpu_unavailable")
    assert "runs on CPU" in job["error"]


def test_failures_of_a_model_that_is_not_gpu_bound_are_retried_and_the_ingest_lands(
    service_url: str, client: OpenSearch, source: Path, index: str
) -> None:
    settings = api_settings(service_url, **SERVICE_PATH, BIOHYBRID__INGEST__ENCODE_ATTEMPTS="3")
    arm(service_url, 2, status=503, message="CUDA out of memory", endpoints=["embeddings"])
    before = _dense_calls(service_url)
    job = _ingest_job(_admin(settings, client), source, index)
    assert job["state"] == "done", job["error"]
    assert job["result"]["written"] == job["result"]["chunks"] >= 1
    assert _dense_calls(service_url) == before + 3  # two refused, the third answered
    stored = client.search(index=index, body={"query": {"match_all": {}}, "_source": ["embedding"]})
    assert len(stored["hits"]["hits"][0]["_source"]["embedding"]) == 384


def test_an_open_ingest_breaker_fails_the_next_job_fast_until_a_probe(
    service_url: str, client: OpenSearch, source: Path, index: str
) -> None:
    settings = api_settings(
        service_url,
        **SERVICE_PATH,
        BIOHYBRID__INGEST__ENCODE_ATTEMPTS="3",
        BIOHYBRID__INGEST__BREAKER_FAILURES="2",
        BIOHYBRID__INGEST__BREAKER_RESET_S="1",
    )
    api = _admin(settings, client)  # its jobs share one board of breakers
    arm(service_url, 2, status=500, message="model exploded", endpoints=["embeddings"])
    before = _dense_calls(service_url)
    opened = _ingest_job(api, source, index)
    assert (opened["state"], opened["reason"]) == ("failed", "circuit_open")
    assert _dense_calls(service_url) == before + 2
    fast = _ingest_job(api, source, index)
    assert (fast["state"], fast["reason"]) == ("failed", "circuit_open")
    assert _dense_calls(service_url) == before + 2  # no call reached the service
    metrics = api.get("/metrics").get_data(as_text=True)
    assert f'biohybrid_api_breaker_state{{model="{DENSE}",path="ingest"}} 1.0' in metrics
    time.sleep(1.0)
    probed = _ingest_job(api, source, index)
    assert probed["state"] == "done", probed["error"]
    assert _dense_calls(service_url) == before + 3


def test_the_cli_ingest_exits_with_the_model_failure(
    service_url: str,
    source: Path,
    index: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(ENV_CONFIG_FILE, str(LOCAL_FILE))
    monkeypatch.setenv("BIOHYBRID__MODELS__SERVICE_URL", service_url)
    monkeypatch.setenv("BIOHYBRID__MODELS__GPU_BOUND", "[dense]")
    for name, value in SERVICE_PATH.items():
        monkeypatch.setenv(name, value)
    arm(service_url, 1, status=503, message="CUDA failure 2: out of memory", endpoints=["embeddings"])
    code = main(["--log-level", "ERROR", "ingest", str(source), "--index", index, "--no-progress"])
    assert code == EXIT_MODEL
    assert f"error: ingest stopped: gpu_unavailable: model '{DENSE}'" in capsys.readouterr().err
