"""The Flask app: endpoints in the shapes ml-commons' built-in connector functions read.

* ``POST /v1/embeddings/<model>`` ``{"input": [texts], "input_type"?: "document"|"query"}`` →
  ``[[float, ...], ...]``: the top-level array ``connector.post_process.default.embedding`` reads with
  JSONPath ``$[*]``. ``"query"`` prepends the model's query instruction (BGE's); the dense connector
  sends it, as does the control plane's search path, so both encode a query to the same vector.
* ``POST /v1/sparse/<model>`` ``{"input": [texts]}`` → ``{"response": [{token: weight}, ...]}``: with no
  post-processing function ml-commons keeps the JSON object as the tensor's data map, and neural-search's
  sparse_encoding / neural_sparse read its ``response`` list of token→weight maps.
* ``POST /v1/rerank/<model>`` ``{"query", "documents", "top_n"?, "depth"?, "model_weight"?}`` →
  ``[{"index": i, "relevance_score": s}]``, best first: what ``connector.post_process.default.rerank`` reads
  (``index`` an integer, ``relevance_score`` a float). A rerank model scores with its cross-encoder (raw
  logits); a dense model's name gives the cosine similarity of its embeddings. With ``depth`` or
  ``model_weight`` the documents are taken as a first-stage ranking: the model scores the first ``depth``
  and its order is blended with theirs (control_plane/fusion/rerank_blend.py), the rest keep their order
  below them, and nothing is cut (a weight of 0 costs no model call). ``budget_ms`` is the caller's
  deadline (the rerank connector sends ``search.rerank_timeout_ms``): past it the answer is 503 and the
  pairs not yet scored are dropped, so an abandoned rerank does not hold the cores.
* Every model and clinical endpoint keeps its callers apart: a caller names itself in
  ``X-Biohybrid-Caller`` (``api``, ``ingest``, ``opensearch``; none: ``unnamed``) and holds at most
  ``caller_share`` of the request threads, and a caller with a rate (``--caller-rate``; by default only
  ``unnamed`` and ``other``) at most its requests per second; past either, 429 with Retry-After
  (control_plane/inference/callers.py). A project caller's name counts only with the caller token
  (``Authorization: Bearer``); without it the request is one of ``other``.
* ``GET /health`` (the process answers), ``GET /ready`` (every model loaded), ``GET /metrics`` (Prometheus),
  ``GET /v1/models`` (what is served, with dimensions and providers, and each model's ``digest`` and
  ``tokenizer`` normalizer, which the control API's query cache keys by; ``gpu_metrics``: whether the GPU
  series are exported). A model run that fails answers its message (503 for a GPU failure, else 500).
* ``POST /v1/clinical/rewrite`` and ``/v1/clinical/route``: the clinical search pipelines' models
  (control_plane/inference/clinical.py).
* ``/admin/faults``: the fault switch (control_plane/inference/faults.py), 404 unless the service started
  with ``--fault-injection`` or ``BIOHYBRID_INFERENCE_FAULT_INJECTION=1``.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any, Literal

from flask import Flask, Response, jsonify, request
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from werkzeug.exceptions import HTTPException

from control_plane.errors import BadRequestError
from control_plane.fusion.rerank_blend import blended_order, blended_scores
from control_plane.inference.batching import BatchTimeoutError, OverloadedError
from control_plane.inference.callers import (
    CallerLimiter,
    CallerRates,
    caller_limit,
    caller_name,
    metric_label,
    verified_caller,
)
from control_plane.inference.clinical import MODEL_LABEL as CLINICAL_LABEL
from control_plane.inference.clinical import register_clinical_routes
from control_plane.inference.config import ServiceConfig
from control_plane.inference.faults import FaultInjector, register_fault_routes
from control_plane.inference.host import ModelHost, ModelUnavailableError, UnknownModelError
from control_plane.inference.metrics import ServiceMetrics
from control_plane.inference.validation import (
    Limits,
    RequestError,
    embeddings_request,
    rerank_request,
)
from control_plane.json_bodies import decode_json
from control_plane.resilience.policy import is_gpu_failure
from control_plane.serving import (
    AUTH_HEADER,
    CALLER_HEADER,
    caller_token,
    client_disconnected,
    token_matches,
)

log = logging.getLogger(__name__)
Loading = Literal["sync", "background", "none"]
_RETRY_AFTER_S = "1"


def create_app(
    config: ServiceConfig | None = None, *, load: Loading = "sync", host: ModelHost | None = None
) -> Flask:
    """Build the app; ``load="background"`` answers /health at once and /ready when the models are in."""
    config = config or ServiceConfig()
    metrics = host.metrics if host is not None else ServiceMetrics()
    host = host or ModelHost(config, metrics)
    limits = Limits(max_items=config.max_items, max_chars=config.max_chars)
    app = Flask("biohybrid-models")
    app.json.sort_keys = False  # type: ignore[attr-defined]  # keep sparse terms heaviest first
    # Worst case UTF-8 (4 bytes a character) plus JSON quoting; beyond it werkzeug answers 413 unread.
    app.config["MAX_CONTENT_LENGTH"] = (
        config.max_items * (config.max_chars * 4 + 16) + config.max_chars * 4 + 4096
    )
    app.extensions["biohybrid.host"] = host
    faults = FaultInjector() if config.fault_injection else None
    app.extensions["biohybrid.faults"] = faults
    if load == "sync":
        host.load()
    elif load == "background":
        host.start_loading()

    callers = CallerLimiter(caller_limit(config.http_threads, config.caller_share))
    app.extensions["biohybrid.callers"] = callers
    rates = CallerRates(dict(config.caller_rates))
    token = caller_token(config.caller_token_file)

    def counted_caller() -> str:
        """Who the request counts as: its named caller, when a project caller's name comes with the token."""
        claimed = metric_label(caller_name(request.headers.get(CALLER_HEADER)))
        caller = verified_caller(claimed, token_matches(request.headers.get(AUTH_HEADER), token))
        if caller != claimed:
            metrics.unverified_callers.labels(claimed).inc()
        return caller

    def limited(handler: Callable[[], Any]) -> Response:
        """The handler's answer, unless the request's caller already holds its share of the threads or
        has sent past its rate."""
        caller = counted_caller()
        wait_s = rates.take(caller)
        if wait_s > 0:
            metrics.caller_refusals.labels(caller, "rate").inc()
            rate = config.caller_rates[caller]
            refused = _error(
                429,
                f"caller '{caller}' sent more than {rate.per_s:g} requests per second (burst {rate.burst}, "
                f"--caller-rate): ask again in {wait_s:.2f}s",
            )
            refused.headers["Retry-After"] = str(max(1, math.ceil(wait_s)))
            return refused
        if not callers.enter(caller):
            metrics.caller_refusals.labels(caller, "threads").inc()
            refused = _error(
                429,
                f"the inference service is at capacity for caller '{caller}' ({callers.limit} of its "
                f"{config.http_threads} request threads in progress, --caller-share "
                f"{config.caller_share:g}): retry after {_RETRY_AFTER_S} s",
            )
            refused.headers["Retry-After"] = _RETRY_AFTER_S
            return refused
        metrics.caller_requests.labels(caller).inc()
        try:
            return _json(handler(), 200)
        finally:
            callers.leave(caller)

    def timed(endpoint: str, model: str, handler: Callable[[], Any]) -> Response:
        started = time.perf_counter()
        fault = faults.take(endpoint) if faults is not None and model in host.states else None
        try:
            if fault is not None:  # the fault switch: answer as the model would fail, without running it
                metrics.injected_faults.labels(endpoint).inc()
                response = _error(fault.status, fault.message)
            else:
                response = limited(handler)
        except RequestError as exc:
            response = _error(exc.status, exc.message)
        except UnknownModelError as exc:
            response = _error(404, str(exc))
        except (OverloadedError, BatchTimeoutError, ModelUnavailableError) as exc:
            response = _error(503, str(exc))
            response.headers["Retry-After"] = _RETRY_AFTER_S
        except HTTPException:
            raise  # werkzeug's own answers (413 for a body over the limit)
        except Exception as exc:  # the model run failed (CUDA out of memory...): say what it was
            log.exception("model call failed", extra={"endpoint": endpoint, "model": model})
            status = 503 if is_gpu_failure(str(exc)) else 500
            response = _error(status, f"model '{model}' failed: {type(exc).__name__}: {exc}")
        served = model in host.states or model == CLINICAL_LABEL
        label = model if served else "unknown"  # a URL must not mint metric series
        metrics.requests.labels(endpoint, label, str(response.status_code)).inc()
        metrics.request_seconds.labels(endpoint, label).observe(time.perf_counter() - started)
        return response

    @app.post("/v1/embeddings/<model>")
    def embeddings(model: str) -> Response:
        def answer() -> list[list[float]]:
            req = embeddings_request(_body(), limits)
            return _vectors(
                host.embed(model, req.texts, as_query=req.as_query, gone=client_disconnected(request.environ))
            )

        return timed("embeddings", model, answer)

    @app.post("/v1/sparse/<model>")
    def sparse(model: str) -> Response:
        def answer() -> dict[str, Any]:
            req = embeddings_request(_body(), limits)  # input_type query: cut to max_query_tokens
            return {
                "response": host.sparse(
                    model, req.texts, as_query=req.as_query, gone=client_disconnected(request.environ)
                )
            }

        return timed("sparse", model, answer)

    @app.post("/v1/rerank/<model>")
    def rerank(model: str) -> Response:
        def answer() -> list[dict[str, Any]]:
            req = rerank_request(_body(), limits)
            budget_s = req.budget_ms / 1000 if req.budget_ms else None
            scorer = host.reranker(model, budget_s=budget_s, gone=client_disconnected(request.environ))
            if req.blended:
                depth = min(req.depth or limits.max_items, len(req.documents))
                weight = 1.0 if req.model_weight is None else req.model_weight
                # weight 0 is the first-stage order: no model call
                model_scores = scorer.score(req.query, req.documents[:depth]) if weight > 0 else [0.0] * depth
                scores = blended_scores(model_scores, len(req.documents), weight)
            else:
                scores = scorer.score(req.query, req.documents)
            ranked = blended_order(scores)  # best first, ties in input order
            # ml-commons reads long decimals as BigDecimal and then fails casting them to Double
            # (ClassCastException in the rerank post-process): send at most 7 significant digits.
            return [{"index": i, "relevance_score": float(f"{scores[i]:.7g}")} for i in ranked[: req.top_n]]

        return timed("rerank", model, answer)

    @app.get("/health")
    def health() -> Response:
        return _json({"status": "ok"}, 200)

    @app.get("/ready")
    def ready() -> Response:
        states = {name: state.to_dict() for name, state in host.states.items()}
        return _json({"ready": host.ready, "models": states}, 200 if host.ready else 503)

    @app.get("/v1/models")
    def models() -> Response:
        models = [state.to_dict() for state in host.states.values()]
        return _json({"models": models, "gpu_metrics": metrics.gpu_enabled}, 200)

    @app.get("/metrics")
    def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), mimetype=CONTENT_TYPE_LATEST)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        return _error(exc.code or 500, exc.description or exc.name)

    register_fault_routes(app, faults)
    register_clinical_routes(app, timed, _body, metrics, faults, config.intents_file)
    return app


def _body() -> Any:
    if not request.is_json:
        raise RequestError(415, "send the body as JSON with Content-Type: application/json")
    try:
        return decode_json(request.get_data())
    except BadRequestError as exc:
        raise RequestError(400, str(exc)) from None


def _vectors(rows: list[Any]) -> list[list[float]]:
    return [row.tolist() for row in rows]


def _json(payload: Any, status: int) -> Response:
    response = jsonify(payload)
    response.status_code = status
    return response


def _error(status: int, message: str) -> Response:
    return _json({"error": {"status": status, "message": message}}, status)
