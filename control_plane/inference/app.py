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
  deadline from the request's arrival (the rerank connector and /v1/search send it): a rerank with a
  budget never fails a search. When the model misses the budget (the pairs not yet scored are dropped,
  so an abandoned rerank does not hold the cores), its queue is full, or it is not loaded, and at once
  when ``requires_gpu`` is true and the model runs on CPU, the answer is 200 with the documents' own
  (first-stage) order (blended scores of weight 0), ``X-Biohybrid-Reranked: false`` and
  ``X-Biohybrid-Rerank-Fallback: timeout|overloaded|unavailable|gpu_unavailable``, counted in
  ``biohybrid_inference_rerank_fallbacks_total{model,reason}``; a reranked answer says
  ``X-Biohybrid-Reranked: true``. Without ``budget_ms`` those failures answer 503 as before.
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
from control_plane.inference.batching import BatchTimeoutError, CallerGoneError, OverloadedError
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
    RerankRequest,
    embeddings_request,
    rerank_request,
)
from control_plane.json_bodies import decode_json
from control_plane.resilience.policy import RERANK_FALLBACK_HEADER, RERANKED_HEADER, is_gpu_failure
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
        arrived = time.perf_counter()
        fell_back: list[str] = []  # the reason, when the first-stage order was answered

        def answer() -> list[dict[str, Any]]:
            req = rerank_request(_body(), limits)
            delay_s = faults.take_delay("rerank") if faults is not None and model in host.states else 0.0
            if req.budget_ms is None:
                scores = _scores(req, model, None, delay_s)
            else:
                scores, reason = _within_budget(req, model, arrived, delay_s)
                if reason is not None:
                    fell_back.append(reason)
                    metrics.rerank_fallbacks.labels(model, reason).inc()
            ranked = blended_order(scores)  # best first, ties in input order
            # ml-commons reads long decimals as BigDecimal and then fails casting them to Double
            # (ClassCastException in the rerank post-process): send at most 7 significant digits.
            return [{"index": i, "relevance_score": float(f"{scores[i]:.7g}")} for i in ranked[: req.top_n]]

        response = timed("rerank", model, answer)
        if response.status_code == 200:
            response.headers[RERANKED_HEADER] = "false" if fell_back else "true"
            if fell_back:
                response.headers[RERANK_FALLBACK_HEADER] = fell_back[0]
        return response

    def _scores(req: RerankRequest, model: str, budget_s: float | None, delay_s: float) -> list[float]:
        """The model's scores (blended with the documents' order in blend mode); raises when the model
        misses ``budget_s``, its queue is full or it is not loaded."""
        scorer = host.reranker(model, budget_s=budget_s, gone=client_disconnected(request.environ))
        if delay_s > 0:
            host.stall(model, delay_s)  # the fault switch's slow model
        if not req.blended:
            return scorer.score(req.query, req.documents)
        depth = min(req.depth or limits.max_items, len(req.documents))
        weight = 1.0 if req.model_weight is None else req.model_weight
        # weight 0 is the first-stage order: no model call
        model_scores = scorer.score(req.query, req.documents[:depth]) if weight > 0 else [0.0] * depth
        return blended_scores(model_scores, len(req.documents), weight)

    def _within_budget(
        req: RerankRequest, model: str, arrived: float, delay_s: float
    ) -> tuple[list[float], str | None]:
        """The scores, or the documents' own (first-stage) order and why (``RERANK_FALLBACK_REASONS``):
        a rerank with a budget is a search's, and the search has the fused order to answer with."""
        first_stage = blended_scores([], len(req.documents), 0.0)
        try:
            host.check_reranker(model)  # a model not served here stays a 404: the caller named it wrong
        except ModelUnavailableError:
            return first_stage, "unavailable"
        if req.requires_gpu and not host.on_gpu(model):
            return first_stage, "gpu_unavailable"
        left_s = (req.budget_ms or 0) / 1000 - (time.perf_counter() - arrived)
        if left_s <= 0:
            return first_stage, "timeout"
        try:
            return _scores(req, model, left_s, delay_s), None
        except CallerGoneError:
            raise  # nobody reads the answer
        except BatchTimeoutError:
            return first_stage, "timeout"
        except OverloadedError:
            return first_stage, "overloaded"
        except ModelUnavailableError:
            return first_stage, "unavailable"

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
