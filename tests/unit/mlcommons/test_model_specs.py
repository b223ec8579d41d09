import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from control_plane.config.settings import load_settings
from control_plane.inference.callers import caller_limit
from control_plane.inference.config import ServiceConfig
from control_plane.mlcommons.registry import (
    CONNECTOR_MAX_CONNECTIONS,
    ROLES,
    client_config_matches,
    model_specs,
)
from control_plane.serving import TOKEN_FILE_ENV, caller_token


@pytest.fixture(autouse=True)
def _own_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_FILE_ENV, str(tmp_path / "caller-token"))


def test_each_role_gets_a_named_connector_to_the_service() -> None:
    settings = load_settings(environ={"BIOHYBRID__MODELS__SERVICE_URL": "http://127.0.0.1:8600"})
    specs = {s.role: s for s in model_specs(settings)}
    assert set(specs) == {"dense", "dense_query", "sparse", "rerank", "clinical_rewrite", "clinical_route"}
    assert (
        specs["clinical_rewrite"].connector["actions"][0]["url"]
        == "${parameters.endpoint}/v1/clinical/rewrite"
    )
    assert (
        specs["clinical_route"].connector["actions"][0]["url"] == "${parameters.endpoint}/v1/clinical/route"
    )
    assert specs["clinical_route"].connector["client_config"]["read_timeout"] == 10
    dense = specs["dense"]
    assert dense.name == "biohybrid-dense-bge-small-bio"
    assert dense.connector["name"] == "biohybrid-dense-bge-small-bio-connector"
    token = caller_token()
    assert dense.connector["parameters"] == {
        "endpoint": "http://127.0.0.1:8600",
        "caller_token_id": hashlib.sha256(token.encode()).hexdigest()[:16],
        "model": "bge-small-bio",
    }
    assert dense.connector["credential"] == {"caller_token": token}
    [action] = dense.connector["actions"]
    assert action["url"] == "${parameters.endpoint}/v1/embeddings/${parameters.model}"
    assert action["post_process_function"] == "connector.post_process.default.embedding"
    assert "post_process_function" not in specs["sparse"].connector["actions"][0]
    assert (
        specs["rerank"].connector["actions"][0]["pre_process_function"]
        == "connector.pre_process.default.rerank"
    )


def test_documents_and_queries_get_their_own_dense_connector() -> None:
    """The ingest pipeline's model encodes documents as they are; the search pipelines' query model asks
    the service for query vectors (the model's query prefix added)."""
    specs = {s.role: s for s in model_specs(load_settings(environ={}))}
    document, query = specs["dense"], specs["dense_query"]
    assert query.name == "biohybrid-dense-query-bge-small-bio" and query.served_name == document.served_name
    assert json.loads(_filled(document.connector)) == {"input": ["t"], "input_type": "document"}
    assert json.loads(_filled(query.connector)) == {"input": ["t"], "input_type": "query"}


def _filled(connector: dict[str, Any]) -> str:
    """The request body ml-commons sends, with its input parameter filled in."""
    return str(connector["actions"][0]["request_body"]).replace("${parameters.input}", '["t"]')


def test_the_rerank_connector_sends_depth_weight_budget_and_the_gpu_requirement() -> None:
    settings = load_settings(
        environ={
            "BIOHYBRID__MODELS__RERANK_TOP_N": "30",
            "BIOHYBRID__MODELS__RERANK_MODEL_WEIGHT": "0.4",
            "BIOHYBRID__SEARCH__RERANK_TIMEOUT_MS": "900",
        }
    )
    [rerank] = [s for s in model_specs(settings) if s.role == "rerank"]
    body = str(rerank.connector["actions"][0]["request_body"])
    filled = body.replace("${parameters.query}", "q").replace("${parameters.documents}", '["d"]')
    assert json.loads(filled) == {
        "query": "q",
        "documents": ["d"],
        "depth": 30,
        "model_weight": 0.4,
        "budget_ms": 900,
        "requires_gpu": True,  # the default (the design): on CPU the fused order at once
    }
    cpu = load_settings(environ={"BIOHYBRID__SEARCH__RERANK_REQUIRES_GPU": "false"})  # the CPU opt-in
    [cpu_rerank] = [s for s in model_specs(cpu) if s.role == "rerank"]
    body = str(cpu_rerank.connector["actions"][0]["request_body"])
    filled = body.replace("${parameters.query}", "q").replace("${parameters.documents}", '["d"]')
    assert json.loads(filled)["requires_gpu"] is False
    for environ in (
        {"BIOHYBRID__SEARCH__RERANK_REQUIRES_GPU": "false", "BIOHYBRID__MODELS__GPU_BOUND": '["rerank"]'},
        {"BIOHYBRID__MODELS__GPU_BOUND": '["rerank"]'},  # as /v1/search reads it
    ):
        [gpu_only] = [s for s in model_specs(load_settings(environ=environ)) if s.role == "rerank"]
        body = str(gpu_only.connector["actions"][0]["request_body"])
        filled = body.replace("${parameters.query}", "q").replace("${parameters.documents}", '["d"]')
        assert json.loads(filled)["requires_gpu"] is True, environ  # on CPU: the fused order at once


def test_every_connector_proves_its_caller_with_the_token_it_holds_as_a_credential() -> None:
    """The token travels as an ml-commons credential (stored encrypted), never in a parameter: only its
    fingerprint is there, so a new token makes new connectors."""
    token = caller_token()
    for spec in model_specs(load_settings(environ={})):
        [action] = spec.connector["actions"]
        assert action["headers"]["x-biohybrid-caller"] == "opensearch"
        assert action["headers"]["authorization"] == "Bearer ${credential.caller_token}", spec.role
        assert spec.connector["credential"] == {"caller_token": token}
        assert token not in json.dumps(spec.connector["parameters"])


def test_all_connectors_together_stay_within_the_services_share_for_opensearch() -> None:
    """Past its connections ml-commons queues a call itself; within them the service never refuses one."""
    specs = model_specs(load_settings(environ={}))
    opened = sum(int(s.connector["client_config"]["max_connection"]) for s in specs)
    assert opened == CONNECTOR_MAX_CONNECTIONS * len(ROLES)
    service = ServiceConfig()
    assert opened <= caller_limit(service.http_threads, service.caller_share)


def test_a_stored_client_config_matches_on_the_blueprints_keys_alone() -> None:
    wanted = {"read_timeout": 10, "max_connection": 16}
    stored = {"read_timeout": 10, "max_connection": 16.0, "retry_backoff_policy": "constant"}
    assert client_config_matches(stored, wanted)
    assert not client_config_matches({**stored, "max_connection": 30}, wanted)
    assert not client_config_matches(None, wanted)
    assert client_config_matches(None, None)
