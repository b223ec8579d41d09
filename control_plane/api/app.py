"""The control API. Every request carries an API key that fixes its tenant and role; searches are
confined to the key's tenant whatever the parameters say; admin endpoints need the admin role.

    POST /v1/search  (SearchSpec JSON)   GET /v1/search?q=...   POST /retrieve   POST /v1/rewrite
    POST /v1/evaluate  GET|POST /v1/admin/...   GET /v1/openapi.json  /health  /ready  /metrics
"""

from __future__ import annotations

import logging
import time
from typing import Any

from flask import Flask, Response, g, request
from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import TransportError
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from control_plane.api.admin import register_admin_routes
from control_plane.api.auth import Principal, Role, authenticate
from control_plane.api.cache_metrics import CacheCollector
from control_plane.api.console.routes import register_console_routes
from control_plane.api.errors import register_error_handlers
from control_plane.api.jobs import JobRegistry
from control_plane.api.limits import KeyLimiter
from control_plane.api.metrics import ApiMetrics
from control_plane.api.openapi import openapi_document
from control_plane.api.params import retrieve_spec, spec_from_body, spec_from_query
from control_plane.api.responses import json_response
from control_plane.api.search_events import retrieval_data
from control_plane.api.search_labels import search_labels
from control_plane.api.security_headers import with_security_headers
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.errors import BadRequestError
from control_plane.evaluation.gauges import EvaluationGauges
from control_plane.evaluation.schedule import start_evaluation_schedule
from control_plane.evaluation.settings import EvaluationSettings, load_evaluation_settings
from control_plane.events.building import RETRIEVAL_COMPLETED
from control_plane.events.emitter import EventEmitter
from control_plane.json_bodies import decode_json
from control_plane.ledger.store import JobLedger
from control_plane.query.components import COMPONENTS
from control_plane.search.answer_metadata import boost_info
from control_plane.search.results import ChunkResult, SearchResponse
from control_plane.search.service import SearchService
from control_plane.search.spec import SearchSpec
from control_plane.serving import client_disconnected

log = logging.getLogger(__name__)


MAX_BODY_BYTES = 1024 * 1024
"""The largest request body the control API reads (a search, an ingest or evaluation request is a few
kilobytes): waitress alone would take 1 GB, and one body could swell the process (issue 73)."""


def create_app(
    settings: Settings,
    client: OpenSearch | None = None,
    service: SearchService | None = None,
    evaluation: EvaluationSettings | None = None,
) -> Flask:
    """The app; with ``evaluation.schedule.enabled`` it also starts the scheduled evaluation, whose
    gauges share the app's /metrics."""
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES  # past it a 413 naming it, the body unread
    client = client or make_client(settings.opensearch)
    service = service or SearchService(make_client(settings.opensearch, retry_on_timeout=False), settings)
    evaluation = evaluation or load_evaluation_settings()
    metrics = ApiMetrics.create()
    metrics.registry.register(CacheCollector(service.caches.stats))
    metrics.track_breakers(service.inference.breakers)
    eval_gauges = EvaluationGauges(metrics.registry, evaluation.alert.metric)
    app.extensions["biohybrid.metrics"] = metrics
    app.extensions["biohybrid.service"] = service
    # Lifecycle events (settings ``events``, off by default) and the job ledger (the ``jobs`` index).
    events = EventEmitter(settings.events, "api", metrics.registry)
    ledger = JobLedger(client, settings, metrics.registry, events)
    app.extensions["biohybrid.events"] = events
    app.extensions["biohybrid.ledger"] = ledger
    app.extensions["biohybrid.scheduler"] = start_evaluation_schedule(
        service, evaluation, eval_gauges, ledger=ledger
    )

    limiter = KeyLimiter()
    app.extensions["biohybrid.limiter"] = limiter

    def principal(role: Role) -> Principal:
        who = authenticate(dict(request.headers), settings.api.keys)
        who.require(role)
        g.tenant = who.tenant
        if g.get("admitted") is None:  # counted once per request, released when it ends
            limiter.admit(who.key_id, who.limits or settings.api.key_limits, settings.api.busy_share)
            g.admitted = who.key_id
        return who

    @app.teardown_request
    def _release(_: BaseException | None) -> None:
        admitted = g.pop("admitted", None)
        if admitted is not None:
            limiter.release(admitted)

    def charge(who: Principal, question: str) -> None:
        """Count the question's characters against its key (after the body is read and valid)."""
        limiter.charge_question(who.key_id, question, who.limits or settings.api.key_limits)

    def run_search(spec: SearchSpec, who: Principal) -> dict[str, Any]:
        charge(who, spec.query)
        gone = client_disconnected(request.environ)
        answer = service.search(spec, tenant_id=who.tenant, caller_gone=gone)
        _observe(metrics, answer)
        if events.search_sampled():
            data = retrieval_data(answer, who.tenant, settings.events.include_query)
            events.emit(RETRIEVAL_COMPLETED, data, subject=who.tenant)
        return answer.model_dump(mode="json", by_alias=True)

    @app.before_request
    def _start() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        endpoint = request.url_rule.rule if request.url_rule else "unmatched"
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        metrics.request_seconds.labels(endpoint, str(response.status_code)).observe(elapsed)
        log.info(
            "request",
            extra={
                "method": request.method,
                "endpoint": endpoint,
                "status": response.status_code,
                "tenant": g.get("tenant"),
                "ms": round(elapsed * 1000, 2),
            },
        )
        return with_security_headers(response)

    @app.get("/health")
    def health() -> Response:
        return json_response({"status": "ok"})

    @app.get("/ready")
    def ready() -> Response:
        try:
            client.cluster.health(params={"request_timeout": 2})
        except (OpenSearchConnectionError, TransportError) as exc:
            return json_response({"ready": False, "opensearch": str(exc)[:200]}, 503)
        return json_response({"ready": True})

    @app.get("/metrics")
    def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), mimetype=CONTENT_TYPE_LATEST)

    @app.get("/v1/openapi.json")
    def openapi() -> Response:
        return json_response(openapi_document())

    @app.get("/v1/search")
    def search_get() -> Response:
        who = principal("search")
        return json_response(run_search(spec_from_query(request.args), who))

    @app.post("/v1/search")
    def search_post() -> Response:
        who = principal("search")
        return json_response(run_search(spec_from_body(_body()), who))

    @app.post("/retrieve")
    def retrieve() -> Response:
        who = principal("search")
        return json_response(run_search(retrieve_spec(_body()), who))

    @app.post("/v1/rewrite")
    def rewrite() -> Response:
        who = principal("search")
        spec = spec_from_body(_body())
        charge(who, spec.query)
        plan = service.plan(spec, tenant_id=who.tenant)
        answer = plan.request.to_dict()
        answer["component_errors"] = plan.component_errors
        answer["reranker_error"] = plan.reranker_error
        # /v1/search re-orders this request's hits when boosts apply (a second, filter-only request
        # fetches the routed sections): say so, with the factors and settings, so a direct client knows.
        answer["section_routing"] = (
            {
                "boosts": [boost_info(b).model_dump() for b in plan.intents.boosts],
                **settings.search.section_routing.model_dump(),
            }
            if plan.intents.boosts
            else None
        )
        return json_response(answer)

    register_admin_routes(app, settings, client, service, lambda: principal("admin"), evaluation, eval_gauges)
    register_console_routes(app, settings, client, service, lambda: principal("admin"), evaluation, _body)

    register_error_handlers(app, settings.opensearch.url)
    metrics.expect_errors(
        rule.rule for rule in app.url_map.iter_rules() if rule.rule not in {"/metrics", "/health", "/ready"}
    )
    return app


def _observe(metrics: ApiMetrics, answer: SearchResponse) -> None:
    meta = answer.metadata
    labels = search_labels(meta)
    metrics.searches.labels(labels.mode, labels.fusion, labels.rerank).inc()
    metrics.search_seconds.labels(labels.mode).observe(meta.timings.total_ms / 1000)
    for boosted in labels.boosted_intents:
        metrics.boosted_searches.labels(boosted).inc()
    if labels.table_routed:
        metrics.table_routed_searches.inc()
    for name, ms in meta.timings.encode_ms.items():
        metrics.component_seconds.labels(name).observe(ms / 1000)
    if meta.timings.opensearch_ms is not None:
        metrics.component_seconds.labels("opensearch").observe(meta.timings.opensearch_ms / 1000)
    for code in meta.component_errors:
        component, _, reason = code.partition("_")
        metrics.component_errors.labels(component, reason).inc()
    if meta.reranker_error:
        metrics.rerank_fallbacks.labels(meta.reranker_error).inc()
    if meta.partial:
        metrics.partial_answers.inc()
    for intent in meta.intents:
        metrics.intent_detections.labels(intent.name).inc()
    for result in answer.results:
        if isinstance(result, ChunkResult):
            metrics.topk_results.inc()
            for component in COMPONENTS:
                if getattr(result.component_scores, component, None) is not None:
                    metrics.topk_component_hits.labels(component).inc()


def _body() -> Any:
    """The request's JSON body, or a 400 naming what is wrong with it (control_plane/json_bodies.py)."""
    if not request.is_json:
        raise BadRequestError("send the body as JSON with 'Content-Type: application/json'")
    return decode_json(request.get_data())


def shutdown(app: Flask, job_grace_s: float) -> list[str]:
    """What a stopping API does once its server stopped taking requests: give running jobs
    ``job_grace_s`` to end and record the rest as interrupted (jobs.py), then send the lifecycle events
    still queued, theirs included (``events.drain_s`` at most), which a daemon thread would otherwise lose
    at exit. Returns the ids of the jobs interrupted (their threads are abandoned)."""
    jobs: JobRegistry | None = app.extensions.get("biohybrid.jobs")
    interrupted = jobs.stop(job_grace_s) if jobs is not None else []
    events: EventEmitter = app.extensions["biohybrid.events"]
    events.close()
    return interrupted
