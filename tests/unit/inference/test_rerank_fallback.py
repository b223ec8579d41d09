"""The rerank endpoint's fallback on the real app with no model loaded (load="none"): a rerank with a budget
(a search's) answers the documents' own order with 200 and says why; one without keeps its 503. The slow
model and the full queue, which need a loaded model, are made for real in
tests/integration/resilience/test_rerank_budget.py."""

from __future__ import annotations

from flask.testing import FlaskClient

from control_plane.inference import ServiceConfig, create_app

RERANK = "/v1/rerank/ce-minilm"
BODY = {"query": "warfarin", "documents": ["a", "b", "c"], "depth": 3, "model_weight": 0.4}
# blend weight 0 over three documents: 1 / (60 + position), to 7 significant digits
FUSED = [
    {"index": 0, "relevance_score": 0.01639344},
    {"index": 1, "relevance_score": 0.01612903},
    {"index": 2, "relevance_score": 0.01587302},
]


def _client(faults: bool = False) -> FlaskClient:
    return create_app(
        ServiceConfig(rerank_models=("ce-minilm",), fault_injection=faults), load="none"
    ).test_client()


def test_a_model_not_loaded_answers_a_budgeted_rerank_in_the_documents_order() -> None:
    api = _client()
    answer = api.post(RERANK, json={**BODY, "budget_ms": 500})
    assert answer.status_code == 200
    assert answer.get_json() == FUSED
    assert answer.headers["X-Biohybrid-Reranked"] == "false"
    assert answer.headers["X-Biohybrid-Rerank-Fallback"] == "unavailable"
    text = api.get("/metrics").get_data(as_text=True)
    assert 'biohybrid_inference_rerank_fallbacks_total{model="ce-minilm",reason="unavailable"} 1.0' in text
    assert 'biohybrid_inference_rerank_fallbacks_total{model="ce-minilm",reason="timeout"} 0.0' in text


def test_without_a_budget_a_model_not_loaded_is_still_a_503() -> None:
    answer = _client().post(RERANK, json=BODY)
    assert answer.status_code == 503 and "is loading" in answer.get_json()["error"]["message"]
    assert "X-Biohybrid-Reranked" not in answer.headers


def test_a_model_not_loaded_is_unavailable_whether_or_not_a_gpu_is_required() -> None:
    """Not loaded comes first: where the model will run is not known yet. (A loaded model on CPU answers
    gpu_unavailable: tests/integration/resilience/test_rerank_budget.py.)"""
    answer = _client().post(RERANK, json={**BODY, "budget_ms": 500, "requires_gpu": True})
    assert answer.status_code == 200 and answer.get_json() == FUSED
    assert answer.headers["X-Biohybrid-Rerank-Fallback"] == "unavailable"


def test_a_model_not_served_is_a_404_with_a_budget_too() -> None:
    """A wrong model name is the caller's error, not a reranker's failure: no fallback hides it."""
    answer = _client().post("/v1/rerank/no-such-model", json={**BODY, "budget_ms": 500, "requires_gpu": True})
    assert answer.status_code == 404 and "no-such-model" in answer.get_json()["error"]["message"]
    assert "X-Biohybrid-Reranked" not in answer.headers


def test_requires_gpu_must_be_a_boolean() -> None:
    answer = _client().post(RERANK, json={**BODY, "budget_ms": 500, "requires_gpu": "yes"})
    assert answer.status_code == 400 and "requires_gpu" in answer.get_json()["error"]["message"]


def test_a_delay_is_armed_on_rerank_only_and_fails_nothing() -> None:
    api = _client(faults=True)
    refused = api.post("/admin/faults", json={"fail_next": 1, "delay_ms": 100})  # default endpoints
    assert (
        refused.status_code == 400
        and "delay_ms applies to ['rerank'] only" in refused.get_json()["error"]["message"]
    )
    armed = api.post("/admin/faults", json={"fail_next": 1, "delay_ms": 100, "endpoints": ["rerank"]})
    assert armed.status_code == 200 and armed.get_json()["armed"]["delay_ms"] == 100
    # a delay is not a failure: the call runs (here: its model is not loaded, so the fallback answers)
    answer = api.post(RERANK, json={**BODY, "budget_ms": 500})
    assert answer.status_code == 200 and answer.headers["X-Biohybrid-Rerank-Fallback"] == "unavailable"
    assert api.get("/admin/faults").get_json() == {"armed": None}  # used up
