"""The inference service's fault switch (control_plane/inference/faults.py) on the real app, with no model
loaded: injected failures are answered before any model would run, so none is needed here."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from control_plane.inference import ServiceConfig, create_app
from control_plane.inference.cli import build_parser, config_from_args
from control_plane.inference.faults import ENV_VAR, FaultInjector, FaultRequest


def _client(enabled: bool) -> FlaskClient:
    return create_app(ServiceConfig(fault_injection=enabled), load="none").test_client()


def test_the_switch_answers_404_unless_enabled() -> None:
    api = _client(enabled=False)
    for method in (api.get, api.post, api.delete):
        answer = method("/admin/faults", json={"fail_next": 1})
        assert answer.status_code == 404
        assert ENV_VAR in answer.get_json()["error"]["message"]


def test_armed_faults_answer_the_next_n_calls_then_stop() -> None:
    api = _client(enabled=True)
    armed = api.post("/admin/faults", json={"fail_next": 2, "status": 503, "message": "CUDA out of memory"})
    assert armed.status_code == 200
    assert armed.get_json() == {
        "armed": {
            "remaining": 2,
            "status": 503,
            "message": "CUDA out of memory",
            "endpoints": ["embeddings", "sparse", "rerank"],
            "delay_ms": 0,
        }
    }
    first = api.post("/v1/embeddings/bge-small", json={"input": ["aspirin"]})
    second = api.post("/v1/sparse/splade-tiny", json={"input": ["aspirin"]})
    assert [first.status_code, second.status_code] == [503, 503]
    assert first.get_json() == {"error": {"status": 503, "message": "CUDA out of memory"}}
    assert api.get("/admin/faults").get_json() == {"armed": None}
    # Disarmed: the call reaches the host, whose model is not loaded (load="none"): its own 503.
    third = api.post("/v1/embeddings/bge-small", json={"input": ["aspirin"]})
    assert third.status_code == 503 and "is loading" in third.get_json()["error"]["message"]


def test_faults_are_counted_like_any_answer_and_on_their_own() -> None:
    api = _client(enabled=True)
    api.post(
        "/admin/faults", json={"fail_next": 3, "status": 500, "message": "boom", "endpoints": ["rerank"]}
    )
    api.post("/v1/embeddings/bge-small", json={"input": ["a"]})  # not armed for embeddings: not faulted
    for _ in range(2):
        api.post("/v1/rerank/ce-minilm", json={"query": "q", "documents": ["d"]})
    text = api.get("/metrics").get_data(as_text=True)
    assert 'biohybrid_inference_requests_total{endpoint="rerank",model="ce-minilm",status="500"} 2.0' in text
    assert 'biohybrid_inference_injected_faults_total{endpoint="rerank"} 2.0' in text
    assert 'biohybrid_inference_injected_faults_total{endpoint="embeddings"}' not in text
    assert api.get("/admin/faults").get_json()["armed"]["remaining"] == 1


def test_a_call_for_a_model_not_served_does_not_use_a_fault() -> None:
    api = _client(enabled=True)
    api.post("/admin/faults", json={"fail_next": 1})
    assert api.post("/v1/embeddings/no-such-model", json={"input": ["a"]}).status_code == 404
    assert api.get("/admin/faults").get_json()["armed"]["remaining"] == 1


def test_delete_disarms() -> None:
    api = _client(enabled=True)
    api.post("/admin/faults", json={"fail_next": 5})
    assert api.delete("/admin/faults").get_json() == {"armed": None}
    assert api.get("/admin/faults").get_json() == {"armed": None}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"fail_next": -1}, "fail_next"),
        ({"fail_next": 1, "status": 200}, "status"),
        ({"fail_next": 1, "endpoints": ["health"]}, "unknown endpoints"),
        ({"fail_next": 1, "typo": 1}, "typo"),
    ],
)
def test_bad_fault_requests_are_refused(body: dict[str, object], problem: str) -> None:
    answer = _client(enabled=True).post("/admin/faults", json=body)
    assert answer.status_code == 400 and problem in answer.get_json()["error"]["message"]


def test_the_injector_hands_out_exactly_n_faults_for_its_endpoints() -> None:
    injector = FaultInjector()
    injector.arm(FaultRequest(fail_next=2, endpoints=("sparse",)))
    taken = [injector.take(e) for e in ("embeddings", "sparse", "sparse", "sparse")]
    assert [f is not None for f in taken] == [False, True, True, False]


def test_the_flag_and_the_environment_variable_enable_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert config_from_args(build_parser().parse_args([])).fault_injection is False
    assert config_from_args(build_parser().parse_args(["--fault-injection"])).fault_injection is True
    monkeypatch.setenv(ENV_VAR, "1")
    assert config_from_args(build_parser().parse_args([])).fault_injection is True
    monkeypatch.setenv(ENV_VAR, "0")
    assert config_from_args(build_parser().parse_args([])).fault_injection is False
