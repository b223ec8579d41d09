"""The control API with tenants separated by index (index.tenant_indices): a key's tenant searches its
own indices, and an ingest or evaluation into another index is answered 403 with the index and the
tenant named, before any job starts. The app's cluster and inference service are unreachable ports:
only requests refused or planned before OpenSearch are sent."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from unit.api.unreachable import unreachable_settings

from control_plane.api.app import create_app
from control_plane.config.api_settings import ApiKey
from control_plane.evaluation.settings import load_evaluation_settings

KEY = "acme-admin-key"


@pytest.fixture(scope="module")
def app() -> Flask:
    key = ApiKey(sha256=hashlib.sha256(KEY.encode()).hexdigest(), tenant="acme", role="admin")
    settings = unreachable_settings(index={"tenant_indices": True}, api={"keys": [key.model_dump()]})
    evaluation = load_evaluation_settings()
    assert not evaluation.schedule.enabled
    return create_app(settings, evaluation=evaluation)


def _post(client: FlaskClient, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    answer = client.post(path, json=body, headers={"X-API-Key": KEY})
    return answer.status_code, answer.get_json()


def test_a_search_reads_the_tenants_own_indices(app: Flask) -> None:
    status, plan = _post(app.test_client(), "/v1/rewrite", {"query": "warfarin", "components": ["bm25"]})
    assert status == 200
    assert plan["index"] == "chunks-acme,chunks-acme-*"
    assert plan["params"]["ignore_unavailable"] == "true"
    assert {"term": {"tenant_id": "acme"}} in plan["body"]["query"]["hybrid"]["filter"]["bool"]["filter"]


def test_an_ingest_into_another_tenants_index_is_403_and_starts_no_job(app: Flask) -> None:
    status, answer = _post(
        app.test_client(), "/v1/admin/ingest", {"sources": ["pmc"], "index": "chunks-globex"}
    )
    assert status == 403
    assert answer["error"]["message"].startswith("index 'chunks-globex' is not tenant 'acme''s")
    assert "'chunks-acme-<suffix>'" in answer["error"]["message"]
    assert not app.extensions["biohybrid.jobs"]._jobs


def test_an_evaluation_over_another_index_is_403_before_the_job(app: Flask) -> None:
    index = load_evaluation_settings().index_for("nfcorpus")
    status, answer = _post(
        app.test_client(), "/v1/evaluate", {"test_set_id": "nfcorpus/dev", "limit": 1, "store": False}
    )
    assert status == 403
    assert answer["error"]["message"].startswith(f"index {index!r} is not tenant 'acme''s")
    assert not app.extensions["biohybrid.jobs"]._jobs
