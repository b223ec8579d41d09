"""The real inference service with its fault switch on (control_plane/inference/faults.py), and helpers
to arm it and to read what reached it, for tests of what callers do when model calls fail."""

from __future__ import annotations

import json
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from integration.service import free_port, service_counters

from control_plane.inference.faults import ENV_VAR
from control_plane.inference.process import start_service, stop_service


@contextmanager
def faulty_service(timeout_s: float = 120.0, options: tuple[str, ...] = ()) -> Iterator[str]:
    """A fresh service process on a free port, started with ``BIOHYBRID_INFERENCE_FAULT_INJECTION=1``
    (``options``: more of its command-line options, e.g. ``("--queue-size", "2")``)."""
    with tempfile.TemporaryDirectory() as state, pytest.MonkeyPatch.context() as env:
        env.setenv(ENV_VAR, "1")
        url, _ = start_service(free_port(), state_dir=Path(state), timeout_s=timeout_s, models=options)
        env.undo()  # only the child needed it
        try:
            yield url
        finally:
            stop_service(Path(state))


def call(
    url: str,
    method: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float = 10,
) -> tuple[int, Any]:
    """A JSON request over real HTTP: its status and decoded answer (error answers included)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json", **(headers or {})}, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def arm(
    url: str,
    fail_next: int,
    *,
    status: int = 503,
    message: str = "CUDA out of memory",
    endpoints: Sequence[str] = ("embeddings", "sparse", "rerank"),
) -> None:
    body = {"fail_next": fail_next, "status": status, "message": message, "endpoints": list(endpoints)}
    code, answer = call(f"{url}/admin/faults", "POST", body)
    assert code == 200, answer


def slow_down(url: str, calls: int, delay_ms: int) -> None:
    """Make the rerank model slow for real: its worker stalls ``delay_ms`` before the batch of each of the
    next ``calls`` rerank calls (faults.py ``delay_ms``)."""
    body = {"fail_next": calls, "delay_ms": delay_ms, "endpoints": ["rerank"]}
    code, answer = call(f"{url}/admin/faults", "POST", body)
    assert code == 200, answer


def disarm(url: str) -> None:
    code, answer = call(f"{url}/admin/faults", "DELETE")
    assert code == 200 and answer == {"armed": None}, answer


def requests_reached(url: str, endpoint: str, model: str) -> dict[str, int]:
    """``{status: count}`` of the requests the service answered on ``endpoint`` for ``model`` (its own
    biohybrid_inference_requests_total counter)."""
    return {
        labels["status"]: int(value)
        for labels, value in service_counters(url).get("biohybrid_inference_requests", [])
        if labels["endpoint"] == endpoint and labels["model"] == model
    }


def rerank_fallbacks(url: str, model: str) -> dict[str, int]:
    """``{reason: count}`` of the service's reranks that answered the first-stage order
    (biohybrid_inference_rerank_fallbacks_total)."""
    return {
        labels["reason"]: int(value)
        for labels, value in service_counters(url).get("biohybrid_inference_rerank_fallbacks", [])
        if labels["model"] == model
    }
