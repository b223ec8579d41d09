"""Query encoding through the project's inference service, one call per component, each with its own
timeout, so a slow or dead model costs that component only (the search degrades instead of failing).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

import requests

from control_plane.errors import BiohybridError


class ComponentError(BiohybridError):
    """A component could not be used for this query; ``reason`` is timeout, unavailable or error."""

    def __init__(self, component: str, reason: str, detail: str) -> None:
        super().__init__(f"{component}: {reason} ({detail})")
        self.component = component
        self.reason = reason
        self.detail = detail

    @property
    def code(self) -> str:
        return f"{self.component}_{self.reason}"


@dataclass(frozen=True)
class InferenceClient:
    """HTTP client of the inference service's /v1/embeddings and /v1/sparse endpoints. Each thread keeps
    one session, so its calls reuse a kept-alive connection instead of paying a TCP connect each."""

    service_url: str
    dense_model: str
    sparse_model: str
    _local: threading.local = field(default_factory=threading.local, compare=False, repr=False)

    def dense(self, text: str, timeout_s: float) -> list[float]:
        body = {"input": [text], "input_type": "query"}  # the service adds the model's query prefix
        rows = self._post(f"/v1/embeddings/{self.dense_model}", body, timeout_s, "dense")
        return [float(x) for x in rows[0]]

    def sparse(self, text: str, timeout_s: float) -> dict[str, float]:
        answer = self._post(f"/v1/sparse/{self.sparse_model}", {"input": [text]}, timeout_s, "splade")
        return {token: float(weight) for token, weight in answer["response"][0].items()}

    def providers(self, timeout_s: float) -> dict[str, list[str]]:
        """Execution providers per served model (CUDAExecutionProvider means a GPU)."""
        answer = self._get("/v1/models", timeout_s, "rerank")
        return {m["name"]: list(m.get("providers", [])) for m in answer.get("models", [])}

    def _post(self, path: str, body: dict[str, Any], timeout_s: float, component: str) -> Any:
        return self._call("POST", path, timeout_s, component, body)

    def _get(self, path: str, timeout_s: float, component: str) -> Any:
        return self._call("GET", path, timeout_s, component, None)

    def _call(self, method: str, path: str, timeout_s: float, component: str, body: Any) -> Any:
        url = self.service_url.rstrip("/") + path
        try:
            response = self._session().request(method, url, json=body, timeout=timeout_s)
        except requests.Timeout as exc:
            raise ComponentError(component, "timeout", f"no answer from {url} in {timeout_s:.3f}s") from exc
        except requests.ConnectionError as exc:
            raise ComponentError(component, "unavailable", f"cannot reach {url}") from exc
        if response.status_code == 503:
            raise ComponentError(component, "unavailable", f"{url} answered 503 (overloaded or loading)")
        if response.status_code >= 400:
            raise ComponentError(component, "error", f"{url} answered {response.status_code}")
        return response.json()

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session


def run_with_deadline(
    pool: ThreadPoolExecutor,
    calls: dict[str, Callable[[], Any]],
    timeout_s: float,
) -> tuple[dict[str, Any], list[ComponentError]]:
    """Run the calls concurrently; each must finish within ``timeout_s`` of the start. Returns the
    results by name and the failures (a call still running at the deadline is a timeout)."""
    deadline = time.monotonic() + timeout_s
    futures: dict[str, Future[Any]] = {name: pool.submit(call) for name, call in calls.items()}
    results: dict[str, Any] = {}
    failures: list[ComponentError] = []
    for name, future in futures.items():
        try:
            results[name] = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            failures.append(ComponentError(name, "timeout", f"not encoded within {timeout_s * 1000:.0f} ms"))
        except ComponentError as exc:
            failures.append(exc)
    return results, failures
