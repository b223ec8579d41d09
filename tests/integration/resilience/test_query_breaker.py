"""The control API's query-encoding breaker against the real inference service, made to fail by its own
fault switch: after N failed dense encodings the breaker opens and the next search drops dense at once,
without a request reaching the service; after the reset timeout one probe closes it again."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask.testing import FlaskClient
from integration.fault_switch import arm, requests_reached
from integration.resilience.resilience_settings import SEARCH_KEY, api_settings
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.config.models_settings import ModelsSettings
from control_plane.evaluation.settings import load_evaluation_settings

pytestmark = pytest.mark.integration
RESET_S = 1.0

DENSE = ModelsSettings().dense  # the default dense model: the one these paths call


def _search(api: FlaskClient) -> dict[str, Any]:
    body = {"query": "aspirin and gastrointestinal bleeding", "size": 3, "boosts": False}
    response = api.post("/v1/search", json=body, headers={"X-API-Key": SEARCH_KEY})
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json()["metadata"])


def _dense_calls(url: str) -> int:
    return sum(requests_reached(url, "embeddings", DENSE).values())


def _dense_refusals(url: str) -> int:
    return requests_reached(url, "embeddings", DENSE).get("503", 0)


def test_an_open_breaker_drops_dense_without_calling_and_a_probe_closes_it(
    service_url: str, client: OpenSearch, chunk_index: str
) -> None:
    settings = api_settings(
        service_url,
        BIOHYBRID__SEARCH__INDEX_PATTERN=chunk_index,
        BIOHYBRID__SEARCH__COMPONENT_TIMEOUT_MS="10000",  # a loaded CI machine must not time out
        BIOHYBRID__SEARCH__BREAKER_FAILURES="2",
        BIOHYBRID__SEARCH__BREAKER_RESET_S=str(RESET_S),
    )
    api = create_app(settings, client, evaluation=load_evaluation_settings(environ={})).test_client()
    arm(service_url, 2, status=503, message="CUDA out of memory", endpoints=["embeddings"])
    before, refused = _dense_calls(service_url), _dense_refusals(service_url)

    failed = [_search(api) for _ in range(2)]
    assert [m["component_errors"] for m in failed] == [["dense_unavailable"], ["dense_unavailable"]]
    assert failed[0]["components_used"] == ["bm25", "splade"]
    assert _dense_refusals(service_url) == refused + 2

    fast = _search(api)  # the fault is used up, but the breaker is open: no call
    assert fast["component_errors"] == ["dense_circuit_open"]
    assert _dense_calls(service_url) == before + 2
    metrics = api.get("/metrics").get_data(as_text=True)
    assert f'biohybrid_api_breaker_state{{model="{DENSE}",path="query"}} 1.0' in metrics
    assert f'biohybrid_api_breaker_opened_total{{model="{DENSE}",path="query"}} 1.0' in metrics
    assert 'biohybrid_api_component_errors_total{component="dense",reason="circuit_open"} 1.0' in metrics

    time.sleep(RESET_S)
    probed = _search(api)  # half-open: one probe, which the healthy service answers
    assert probed["component_errors"] == [] and probed["components_used"] == ["bm25", "splade", "dense"]
    assert _dense_calls(service_url) == before + 3
    assert f'breaker_state{{model="{DENSE}",path="query"}} 0.0' in api.get("/metrics").get_data(as_text=True)


def test_a_gpu_bound_dense_component_is_dropped_as_gpu_unavailable(
    service_url: str, client: OpenSearch, chunk_index: str
) -> None:
    settings = api_settings(
        service_url,
        BIOHYBRID__SEARCH__INDEX_PATTERN=chunk_index,
        BIOHYBRID__SEARCH__COMPONENT_TIMEOUT_MS="10000",
        BIOHYBRID__MODELS__GPU_BOUND="[dense]",
    )
    api = create_app(settings, client, evaluation=load_evaluation_settings(environ={})).test_client()
    arm(service_url, 1, status=503, message="CUDA out of memory", endpoints=["embeddings"])
    assert _search(api)["component_errors"] == ["dense_gpu_unavailable"]  # the service's CUDA failure
    answered = _search(api)  # the service answers, from its CPU
    if answered["component_errors"] == []:
        pytest.skip(f"the inference service runs {DENSE} on a GPU here")
    assert answered["component_errors"] == ["dense_gpu_unavailable"]
    calls = _dense_calls(service_url)
    known = _search(api)  # the providers are known now: refused before any call
    assert known["component_errors"] == ["dense_gpu_unavailable"] and known["components_used"] == [
        "bm25",
        "splade",
    ]
    assert _dense_calls(service_url) == calls
