"""Graceful degradation on the real stack: components dropped on timeout or when the inference service
stops, rerank falling back to the fused ranking, and 503 when nothing is left."""

from __future__ import annotations

from typing import Any

import pytest
from integration.api.stack import ApiStack, headers
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.config.settings import Settings
from control_plane.search.encoders import InferenceClient

pytestmark = pytest.mark.integration


def _with_search(settings: Settings, **changes: Any) -> Settings:
    return settings.model_copy(update={"search": settings.search.model_copy(update=changes)})


def _post(app_client: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = app_client.post("/v1/search", json=body, headers=headers("a-search"))
    return response.status_code, response.get_json()


def test_components_over_their_time_budget_are_dropped(stack: ApiStack, client: OpenSearch) -> None:
    app = create_app(_with_search(stack.settings, component_timeout_ms=1), client)
    # Boosts off: a routed section fetched for the asked-about record has no component score.
    body = {"query": "serious adverse events", "size": 5, "boosts": False}
    status, answer = _post(app.test_client(), body)
    assert status == 200
    assert sorted(answer["metadata"]["component_errors"]) == ["dense_timeout", "splade_timeout"]
    assert answer["metadata"]["components_used"] == ["bm25"]
    assert answer["results"] and all(r["component_scores"]["bm25"] is not None for r in answer["results"])


def test_a_rerank_over_its_budget_returns_the_fused_ranking(stack: ApiStack, client: OpenSearch) -> None:
    app = create_app(_with_search(stack.settings, rerank_timeout_ms=1), client)
    body = {"query": "serious adverse events", "size": 5, "rerank": True}
    status, answer = _post(app.test_client(), body)
    fused = _post(stack.client(), {"query": "serious adverse events", "size": 5})[1]
    assert status == 200
    assert answer["metadata"]["reranked"] is False and answer["metadata"]["reranker_error"] == "timeout"
    assert [r["chunk_id"] for r in answer["results"]] == [r["chunk_id"] for r in fused["results"]]


def test_a_rerank_that_requires_a_gpu_says_so_when_there_is_none(stack: ApiStack, client: OpenSearch) -> None:
    providers = InferenceClient(f"http://127.0.0.1:{stack.service_port}", "minilm", "splade-tiny").providers(
        5
    )
    if any("CUDAExecutionProvider" in p for p in providers.values()):
        pytest.skip("the inference service runs on a GPU here")
    app = create_app(_with_search(stack.settings, rerank_requires_gpu=True), client)
    status, answer = _post(app.test_client(), {"query": "nausea", "rerank": True})
    assert status == 200
    assert (
        answer["metadata"]["reranked"] is False and answer["metadata"]["reranker_error"] == "gpu_unavailable"
    )


def test_stopping_the_inference_service_degrades_to_bm25_then_recovers(stack: ApiStack) -> None:
    api = stack.client()
    body = {"query": "serious adverse events", "size": 5, "rerank": True, "rerank_top_n": 20}
    status, before = _post(api, body)
    assert status == 200 and before["metadata"]["component_errors"] == [] and before["metadata"]["reranked"]
    stack.stop_service()
    try:
        # A text encoded before the stop is still encoded (the API's encoding cache); a new one is not.
        status, cached = _post(api, {**body, "rerank": False})
        assert status == 200 and cached["metadata"]["component_errors"] == []
        assert cached["metadata"]["cache"]["encodings"] == {"dense": "hit", "splade": "hit"}
        unseen = {**body, "query": "serious adverse events while the models are down"}
        status, during = _post(api, unseen)
        assert status == 200
        meta = during["metadata"]
        assert sorted(meta["component_errors"]) == ["dense_unavailable", "splade_unavailable"]
        assert meta["components_used"] == ["bm25"]
        assert meta["reranked"] is False and meta["reranker_error"] == "unavailable"
        assert during["results"]
        status, nothing = _post(api, {"query": unseen["query"], "components": ["dense", "splade"]})
        assert status == 503
        assert "dense_unavailable" in nothing["error"]["details"]
        metrics = api.get("/metrics").get_data(as_text=True)
        assert 'biohybrid_api_component_errors_total{component="dense",reason="unavailable"}' in metrics
        assert 'biohybrid_api_rerank_fallbacks_total{reason="unavailable"}' in metrics
    finally:
        stack.start_service()
    status, after = _post(api, body)
    assert status == 200 and after["metadata"]["component_errors"] == [] and after["metadata"]["reranked"]
