"""POST /v1/admin/ingest on the real stack refuses a bad job at submission (issue 50 item 4): 400 naming
what was wrong, no job (neither in the app nor in the job ledger's index) and no index, for the jobs
index, an index no chunk template covers, an unknown chunking strategy and a path that does not exist.
A good submission of a JSONL file with one broken line is a job that indexes every valid record and
dead-letters the broken one with its line and reason."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from integration.api.stack import ApiStack, headers
from integration.chunks import refreshed_count
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.evaluation.settings import load_evaluation_settings

pytestmark = pytest.mark.integration
GOOD = [
    {"_id": "submitted-1", "title": "Aspirin", "text": "Low-dose aspirin raises GI bleeding."},
    {
        "_id": "submitted-3",
        "title": "Statins",
        "text": "Statin therapy can cause myopathy in older patients.",
    },
]
BAD_LINE = b'{"_id": "submitted-2", "title": "\xff\xfe", "text": "not UTF-8"}\n'


@pytest.fixture(scope="module")
def indices(client: OpenSearch) -> Iterator[dict[str, str]]:
    """This module's job ledger index, chunk index and a name no template covers."""
    made = {
        "jobs": session_index("submission", prefix="jobs"),
        "chunks": session_index("submission"),
        "bare": f"probe-bare-{session_index('submission', prefix='x')[2:]}",
    }
    yield made
    client.indices.delete(index=",".join(made.values()), ignore_unavailable=True)


@pytest.fixture(scope="module")
def app(stack: ApiStack, client: OpenSearch, indices: dict[str, str]) -> Iterator[Flask]:
    base = stack.settings
    settings = base.model_copy(
        update={
            "ledger": base.ledger.model_copy(update={"index": indices["jobs"]}),
            # The ingest job encodes through the stack's inference service (no models loaded here).
            "ingest": base.ingest.model_copy(update={"encoder": "service", "encode_attempts": 1}),
        }
    )
    built = create_app(settings, client, evaluation=load_evaluation_settings(environ={}))
    yield built
    built.extensions["biohybrid.events"].close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("submission") / "corpus.jsonl"
    good = [json.dumps(record).encode("utf-8") + b"\n" for record in GOOD]
    path.write_bytes(good[0] + BAD_LINE + good[1])
    return path


def _post(api: FlaskClient, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    answer = api.post("/v1/admin/ingest", json=body, headers=headers("a-admin"))
    return answer.status_code, answer.get_json()


def _no_job(app: Flask, api: FlaskClient) -> None:
    assert not app.extensions["biohybrid.jobs"]._jobs
    listed = api.get("/v1/admin/jobs?kind=ingest", headers=headers("a-admin")).get_json()
    assert listed["total"] == 0 and listed["jobs"] == []


def test_the_jobs_index_is_400_and_no_job(
    app: Flask, client: OpenSearch, corpus: Path, indices: dict[str, str]
) -> None:
    api = app.test_client()
    for index in ("jobs", indices["jobs"]):
        status, answer = _post(api, {"sources": [str(corpus)], "index": index})
        assert status == 400
        assert answer["error"]["message"].startswith(
            f"index {index!r} is reserved for the project's own records ({indices['jobs']}, eval-runs"
        )
    _no_job(app, api)
    assert not client.indices.exists(index=indices["jobs"])


def test_an_index_no_template_covers_is_400_naming_the_pattern(
    app: Flask, client: OpenSearch, corpus: Path, indices: dict[str, str]
) -> None:
    api = app.test_client()
    status, answer = _post(api, {"sources": [str(corpus)], "index": indices["bare"]})
    assert status == 400
    assert answer["error"]["message"] == (
        f"index {indices['bare']!r} matches no template of this project (chunks-*), so it would get no "
        "chunk mappings (the embedding a plain float, not a knn_vector: every hybrid query on it fails): "
        "name it chunks-<something>"
    )
    _no_job(app, api)
    assert not client.indices.exists(index=indices["bare"])


def test_an_unknown_strategy_is_400_listing_the_known_ones(
    app: Flask, client: OpenSearch, corpus: Path, indices: dict[str, str]
) -> None:
    api = app.test_client()
    body = {"sources": [str(corpus)], "index": indices["chunks"], "strategy": "paragraphs"}
    status, answer = _post(api, body)
    assert status == 400
    assert answer["error"]["message"] == (
        "unknown chunking strategy 'paragraphs'; known strategies: section, paragraph, sentence, "
        "sliding_window, haystack-sentence, haystack-word, haystack-passage"
    )
    _no_job(app, api)
    assert not client.indices.exists(index=indices["chunks"])


def test_a_path_that_does_not_exist_is_400_naming_it(
    app: Flask, client: OpenSearch, corpus: Path, indices: dict[str, str]
) -> None:
    api = app.test_client()
    missing = corpus.parent / "no-such-folder" / "corpus.jsonl"
    status, answer = _post(api, {"sources": [str(corpus), str(missing)], "index": indices["chunks"]})
    assert status == 400
    assert answer["error"]["message"] == (
        f"no such dataset, file or folder: {missing} (dataset ids: pmc, ctgov, medline, nfcorpus, "
        "scifact; or a path that exists)"
    )
    _no_job(app, api)
    assert not client.indices.exists(index=indices["chunks"])


def test_a_file_with_a_broken_line_is_a_job_that_loses_no_valid_record(
    app: Flask, client: OpenSearch, corpus: Path, indices: dict[str, str]
) -> None:
    api = app.test_client()
    status, started = _post(api, {"sources": [str(corpus)], "index": indices["chunks"]})
    assert status == 202, started
    deadline = time.monotonic() + 120
    while (job := api.get(f"/v1/admin/jobs/{started['id']}", headers=headers("a-admin")).get_json())[
        "state"
    ] not in ("done", "failed"):
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
    assert job["state"] == "done", job.get("error")
    result = job["result"]
    assert (result["documents"], result["parse_errors"], result["index_failures"]) == (2, 1, 0)
    assert refreshed_count(client, indices["chunks"]) == result["chunks"] >= 2
    lines = Path(result["dead_letter"]).read_text(encoding="utf-8").splitlines()
    [record] = [r for r in map(json.loads, lines) if r.get("path") == str(corpus)]
    assert (record["stage"], record["location"], record["line"]) == ("parse", "line 2", 2)
    assert record["reason"] == "invalid UTF-8: byte 0xff at column 34"
