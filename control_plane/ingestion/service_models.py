"""Ingest's encoders through the project's inference service (``ingest.encoder: service``): the same
models and outputs as the local ONNX path, computed on the service's host (its GPU, when it has one).

A failed call raises ServiceCallError with the service's own message (a CUDA failure says so), which the
guard (guard.py) classifies; the service's execution providers say whether a model runs on a GPU.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import requests

from control_plane.resilience.policy import GPU_PROVIDER, ModelCallError
from control_plane.serving import caller_session


class ServiceCallError(ModelCallError):
    """The service did not answer the call, or answered an error; ``reason`` is unavailable or error."""

    def __init__(self, model: str, message: str, *, unavailable: bool, failure: str | None = None) -> None:
        self.reason = "unavailable" if unavailable else "error"
        super().__init__(model, message, failure)


class ServiceClient:
    """The inference service at ``url``; one kept-alive session per thread."""

    def __init__(self, url: str, timeout_s: float) -> None:
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self._local = threading.local()

    def post(self, path: str, model: str, body: dict[str, Any]) -> Any:
        url = f"{self.url}{path}/{model}"
        try:
            response = self._session().post(url, json=body, timeout=self.timeout_s)
        except requests.Timeout:
            detail = f"no answer from {url} in {self.timeout_s:g}s"
            raise ServiceCallError(model, detail, unavailable=True, failure="timeout") from None
        except requests.ConnectionError:
            detail = f"cannot reach {url}"
            raise ServiceCallError(model, detail, unavailable=True, failure="no connection") from None
        if response.status_code >= 400:
            try:
                message = str(response.json()["error"]["message"])
            except (ValueError, KeyError, TypeError):
                message = response.text[:200]
            detail = f"{url} answered {response.status_code}: {message}"
            unavailable = response.status_code in (429, 503)
            raise ServiceCallError(model, detail, unavailable=unavailable, failure=message)
        return response.json()

    def on_gpu(self, model: str) -> bool:
        """Whether the service runs ``model`` with the CUDA execution provider (GET /v1/models)."""
        response = self._session().get(f"{self.url}/v1/models", timeout=self.timeout_s)
        response.raise_for_status()
        served = {m["name"]: m.get("providers", []) for m in response.json().get("models", [])}
        return GPU_PROVIDER in served.get(model, [])

    def _session(self) -> requests.Session:
        return caller_session(self._local, "ingest")


class ServiceDenseModel:
    """Document vectors of ``model`` from /v1/embeddings (no query prefix)."""

    def __init__(self, client: ServiceClient, model: str) -> None:
        self.client = client
        self.name = model

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = self.client.post("/v1/embeddings", self.name, {"input": list(texts), "input_type": "document"})
        return np.asarray(rows, dtype=np.float32)


class ServiceSparseModel:
    """SPLADE term weights of ``model`` from /v1/sparse."""

    def __init__(self, client: ServiceClient, model: str) -> None:
        self.client = client
        self.name = model

    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        answer = self.client.post("/v1/sparse", self.name, {"input": list(texts)})
        return [{token: float(w) for token, w in weights.items()} for weights in answer["response"]]
