"""The query encoders' breakers and GPU-bound components, from settings; and a service that cannot be
reached (a closed local port: a real refused connection) opening the breaker, after which the component
fails fast with ``circuit_open`` without trying to connect."""

from __future__ import annotations

import socket
from collections.abc import Callable

from control_plane.config.settings import load_settings
from control_plane.resilience.breaker import BreakerBoard, BreakerSettings
from control_plane.search.encoders import ComponentError, InferenceClient


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends: connections are refused


def _reason(call: Callable[[], object]) -> str:
    try:
        call()
    except ComponentError as exc:
        return exc.code
    return "ok"


def test_the_client_is_built_from_the_breaker_and_gpu_settings() -> None:
    settings = load_settings(
        environ={
            "BIOHYBRID__SEARCH__BREAKER_FAILURES": "2",
            "BIOHYBRID__SEARCH__BREAKER_RESET_S": "0.5",
            "BIOHYBRID__MODELS__GPU_BOUND": "[sparse, rerank]",
        }
    )
    client = InferenceClient.from_settings(settings)
    assert client.breakers is not None and client.breakers.settings == BreakerSettings(2, 0.5)
    assert client.gpu_bound == frozenset({"splade"})


def test_a_dead_service_opens_the_breaker_then_the_component_fails_fast() -> None:
    board = BreakerBoard(BreakerSettings(failures=2, reset_s=60))
    client = InferenceClient(f"http://127.0.0.1:{_closed_port()}", "bge-small", "splade-tiny", breakers=board)
    reasons = [_reason(lambda: client.dense("aspirin", 1.0)) for _ in range(3)]
    assert reasons == ["dense_unavailable", "dense_unavailable", "dense_circuit_open"]
    assert board.snapshot() == {"bge-small": ("open", 1)}
    assert _reason(lambda: client.sparse("aspirin", 1.0)) == "splade_unavailable"  # its own breaker
