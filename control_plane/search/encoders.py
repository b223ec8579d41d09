"""Query encoding through the project's inference service, one call per component, each with its own
timeout, so a slow or dead model costs that component only (the search degrades instead of failing).

Each model has a circuit breaker (``search.breaker_failures``, ``search.breaker_reset_s``): while it is
open the component fails fast with reason ``circuit_open`` and no call is made. A GPU-bound component
(``models.gpu_bound``) fails with ``gpu_unavailable`` when the service answers a GPU failure or runs the
model on CPU (the service's providers, cached for ``PROVIDERS_TTL_S``).
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

from control_plane.config.settings import Settings
from control_plane.errors import BiohybridError
from control_plane.query.components import COMPONENTS, EncoderRole
from control_plane.resilience.breaker import BreakerBoard, BreakerSettings
from control_plane.resilience.policy import (
    GPU_PROVIDER,
    RERANK_FALLBACK_HEADER,
    RERANKED_HEADER,
    is_gpu_failure,
)
from control_plane.search.degradation import rerank_call_failure, rerank_fallback_reason
from control_plane.serving import caller_session

PROVIDERS_TTL_S = 30.0


class ComponentError(BiohybridError):
    """A component could not be used for this query; ``reason`` is timeout, unavailable, error,
    circuit_open or gpu_unavailable; ``status`` and ``message``: the service's answer, when it answered."""

    def __init__(
        self, component: str, reason: str, detail: str, status: int | None = None, message: str = ""
    ) -> None:
        super().__init__(f"{component}: {reason} ({detail})")
        self.component = component
        self.reason = reason
        self.detail = detail
        self.status = status
        self.message = message

    @property
    def code(self) -> str:
        return f"{self.component}_{self.reason}"


class _ProvidersCache:
    """The service's execution providers per model, kept for PROVIDERS_TTL_S (they change on restart)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value: tuple[float, dict[str, list[str]]] | None = None

    def get(self) -> dict[str, list[str]] | None:
        with self._lock:
            if self._value is None or time.monotonic() - self._value[0] > PROVIDERS_TTL_S:
                return None
            return self._value[1]

    def put(self, providers: dict[str, list[str]]) -> dict[str, list[str]]:
        with self._lock:
            self._value = (time.monotonic(), providers)
        return providers


@dataclass(frozen=True)
class RerankAnswer:
    """The service's rerank of a search's fused hits: ``ranking`` (``[{"index", "relevance_score"}]``,
    best first) when the model's order was applied, else None and ``reason`` (RERANK_REASONS)."""

    ranking: list[dict[str, Any]] | None
    reason: str | None
    detail: str


@dataclass(frozen=True)
class InferenceClient:
    """HTTP client of the inference service's /v1/embeddings and /v1/sparse endpoints. Each thread keeps
    one session, so its calls reuse a kept-alive connection instead of paying a TCP connect each."""

    service_url: str
    dense_model: str
    sparse_model: str
    breakers: BreakerBoard | None = field(default=None, compare=False)
    """One breaker per model (None: no breaker)."""
    gpu_bound: frozenset[str] = frozenset()
    """Components (dense, splade) whose model must run on a GPU."""
    _local: threading.local = field(default_factory=threading.local, compare=False, repr=False)
    _providers: _ProvidersCache = field(default_factory=_ProvidersCache, compare=False, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> InferenceClient:
        models, search = settings.models, settings.search
        return cls(
            models.service_url,
            models.dense,
            models.sparse,
            breakers=BreakerBoard(BreakerSettings(search.breaker_failures, search.breaker_reset_s)),
            gpu_bound=frozenset(c.name for c in COMPONENTS.values() if c.encoder in models.gpu_bound),
        )

    def encoder(self, role: EncoderRole) -> tuple[str, Callable[[str, float], Any]]:
        """The model that encodes a query for a component of that role, and its call."""
        return (self.dense_model, self.dense) if role == "dense" else (self.sparse_model, self.sparse)

    def dense(self, text: str, timeout_s: float) -> list[float]:
        body = {"input": [text], "input_type": "query"}  # the service adds the model's query prefix
        rows = self._model_call("dense", self.dense_model, "/v1/embeddings", body, timeout_s)
        return [float(x) for x in rows[0]]

    def sparse(self, text: str, timeout_s: float) -> dict[str, float]:
        body = {"input": [text], "input_type": "query"}  # the service cuts it to what a query model reads
        answer = self._model_call("splade", self.sparse_model, "/v1/sparse", body, timeout_s)
        return {token: float(weight) for token, weight in answer["response"][0].items()}

    def _model_call(self, component: str, model: str, path: str, body: Any, timeout_s: float) -> Any:
        """One call of ``model`` behind its breaker; a GPU-bound component also needs the GPU."""
        gpu_bound = component in self.gpu_bound
        if gpu_bound:
            self._require_gpu(component, model, timeout_s, known_only=True)
        breaker = self.breakers.get(model) if self.breakers is not None else None
        if breaker is not None and not breaker.allow():
            detail = (
                f"model '{model}' failed {breaker.consecutive_failures} calls in a row; "
                f"no call for {breaker.retry_in_s():.1f}s more"
            )
            raise ComponentError(component, "circuit_open", detail)
        try:
            answer = self._post(f"{path}/{model}", body, timeout_s, component)
        except ComponentError as exc:
            if breaker is not None:
                # The service answered a client error: the model is up, the request was wrong.
                if exc.status is not None and exc.status < 500:
                    breaker.record_success()
                else:
                    breaker.record_failure()
            if gpu_bound and is_gpu_failure(exc.message):
                raise ComponentError(
                    component, "gpu_unavailable", exc.detail, exc.status, exc.message
                ) from exc
            raise
        if breaker is not None:
            breaker.record_success()
        if gpu_bound:
            self._require_gpu(component, model, timeout_s, known_only=False)
        return answer

    def _require_gpu(self, component: str, model: str, timeout_s: float, *, known_only: bool) -> None:
        """Fail with gpu_unavailable when the service runs ``model`` on CPU (``known_only``: only when its
        providers are already cached, so a check costs no call before the model call)."""
        providers = self._providers.get()
        if providers is None:
            if known_only:
                return
            providers = self._providers.put(self._served_providers(timeout_s, component))
        served = providers.get(model, [])
        if GPU_PROVIDER not in served:
            detail = (
                f"model '{model}' is GPU-bound (models.gpu_bound) but the service runs it on "
                f"{', '.join(served) or 'nothing'}: run it on a GPU or take it out of models.gpu_bound"
            )
            raise ComponentError(component, "gpu_unavailable", detail)

    def models(self, timeout_s: float) -> list[dict[str, Any]]:
        """What the service reports per served model (GET /v1/models): name, role, status, providers and,
        once loaded, the model's digest and tokenizer normalizer (what the query cache keys by)."""
        answer = self._get("/v1/models", timeout_s, "models")
        return [dict(model) for model in answer.get("models", [])]

    def providers(self, timeout_s: float) -> dict[str, list[str]]:
        """Execution providers per served model (CUDAExecutionProvider means a GPU)."""
        return self._served_providers(timeout_s, "rerank")

    def _served_providers(self, timeout_s: float, component: str) -> dict[str, list[str]]:
        answer = self._get("/v1/models", timeout_s, component)
        return {m["name"]: list(m.get("providers", [])) for m in answer.get("models", [])}

    def rerank(self, model: str, body: dict[str, Any], timeout_s: float) -> RerankAnswer:
        """One call of the service's rerank endpoint with the search's budget (``body["budget_ms"]``): the
        model's order, or the fused order and why (the service's fallback headers, or the call's
        failure: RERANK_REASONS). Never retried, never raises for the service's state."""
        url = f"{self.service_url.rstrip('/')}/v1/rerank/{model}"
        try:
            response = self._session().post(url, json=body, timeout=timeout_s)
        except requests.Timeout:
            return RerankAnswer(None, "timeout", f"no answer from {url} in {timeout_s:.3f}s")
        except requests.ConnectionError:
            return RerankAnswer(None, "unavailable", f"cannot reach {url}")
        if response.status_code != 200:
            message = _error_message(response)
            failure = rerank_call_failure("error", response.status_code)
            return RerankAnswer(None, failure, f"{url} answered {response.status_code}: {message}")
        reason = rerank_fallback_reason(
            response.headers.get(RERANKED_HEADER), response.headers.get(RERANK_FALLBACK_HEADER)
        )
        if reason is not None:
            return RerankAnswer(None, reason, f"{url} answered the fused order ({reason})")
        return RerankAnswer(list(response.json()), None, "")

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
        if response.status_code >= 400:
            message = _error_message(response)
            reason = "unavailable" if response.status_code == 503 else "error"
            detail = f"{url} answered {response.status_code}: {message}"
            raise ComponentError(component, reason, detail, response.status_code, message)
        return response.json()

    def _session(self) -> requests.Session:
        return caller_session(self._local, "api")


def _error_message(response: requests.Response) -> str:
    """The message of the service's error body ``{"error": {"message"}}``, else the start of the text."""
    try:
        return str(response.json()["error"]["message"])[:500]
    except (ValueError, KeyError, TypeError):
        return response.text[:200] or response.reason or "no message"


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
