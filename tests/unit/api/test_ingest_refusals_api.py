"""POST /v1/admin/ingest refuses a bad job at submission (issue 50 item 4): 400 naming what was wrong
and no job, for an index no chunk template covers, a reserved index (the ledger's, eval-runs), an
unknown chunking strategy and a source that is not there. The app's cluster and inference service are
unreachable ports: the refusals come before any request to them (tests/integration/api/
test_ingest_submission.py checks the same on the real stack)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from unit.api.unreachable import unreachable_settings

from control_plane.api.app import create_app
from control_plane.config.api_settings import ApiKey
from control_plane.evaluation.settings import load_evaluation_settings

KEY = "refusals-admin-key"


@pytest.fixture(scope="module")
def app() -> Flask:
    key = ApiKey(sha256=hashlib.sha256(KEY.encode()).hexdigest(), tenant="acme", role="admin")
    settings = unreachable_settings(api={"keys": [key.model_dump()]})
    return create_app(settings, evaluation=load_evaluation_settings(environ={}))


@pytest.fixture
def corpus(tmp_path: Path) -> str:
    path = tmp_path / "corpus.jsonl"
    path.write_text('{"_id": "a", "title": "Aspirin", "text": "Aspirin and stroke."}\n', encoding="utf-8")
    return str(path)


def _refused(app: Flask, body: dict[str, Any]) -> str:
    answer = app.test_client().post("/v1/admin/ingest", json=body, headers={"X-API-Key": KEY})
    assert answer.status_code == 400, answer.get_json()
    assert not app.extensions["biohybrid.jobs"]._jobs
    return str(answer.get_json()["error"]["message"])


@pytest.mark.parametrize("index", ["jobs", "eval-runs", "jobs-archive"])
def test_a_reserved_index_is_400(app: Flask, corpus: str, index: str) -> None:
    message = _refused(app, {"sources": [corpus], "index": index})
    assert message.startswith(f"index {index!r} is reserved for the project's own records (jobs, eval-runs")
    assert message.endswith("name it chunks-<something>")


def test_an_index_no_template_covers_is_400_naming_the_pattern(app: Flask, corpus: str) -> None:
    message = _refused(app, {"sources": [corpus], "index": "probe-bare"})
    assert message.startswith("index 'probe-bare' matches no template of this project (chunks-*)")


def test_a_system_index_is_400(app: Flask, corpus: str) -> None:
    assert "index: String should match pattern" in _refused(app, {"sources": [corpus], "index": ".kibana"})


def test_an_unknown_strategy_is_400_listing_the_known_ones(app: Flask, corpus: str) -> None:
    message = _refused(app, {"sources": [corpus], "index": "chunks-mine", "strategy": "paragraphs"})
    assert message.startswith("unknown chunking strategy 'paragraphs'; known strategies: section, paragraph,")


def test_a_source_that_is_not_there_is_400_naming_it(app: Flask, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "corpus.jsonl"
    message = _refused(app, {"sources": [str(missing), "pubmedqa"], "index": "chunks-mine"})
    assert message.startswith(f"no such dataset, file or folder: {missing}, pubmedqa (dataset ids: pmc,")
