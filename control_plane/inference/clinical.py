"""The clinical search pipelines' two models, served beside the encoders (control_plane/clinical/pipeline.py
computes; this module validates and answers in the shapes the pipelines' ml_inference processors map).

* ``POST /v1/clinical/rewrite`` ``{"request": <the client's search request>, "depth", "ef_search"?}`` →
  ``{"query": <the product's hybrid query>, "source": <the _source to fetch>, "query_text",
  "intents": [...], "degraded": bool}``. A client query of another form, or a page the pipelines cannot
  route, is a 400 naming what to send. If the clinical step fails (or the fault
  switch fails it), the plain hybrid query is answered and counted in
  ``biohybrid_inference_clinical_degraded_total``: the client still gets hybrid search.
* ``POST /v1/clinical/route`` ``{"hits": [<_source with previous_score>...], "query": <the request's
  query>, "weight", "min_topicality", "max_documents", "depth", "fusion", "output"}`` → per hit in the
  hits' order, ``{"metadata": [{"clinical_route"?, "route_score"}...]}`` (``output`` ``metadata``, the
  default: over the fused window, each hit's routed score and its route note unless it is the plan's
  "not lifted" note, which the page step writes back) or ``{"scores": [...],
  "notes": [...]}`` (``fields``, the Haystack form); ``output`` ``page``, after the cut to the page, routes
  nothing and answers each hit's ``metadata`` object (what a RAG library's document shows, with the note
  the window's step left or implied; control_plane/clinical/pipeline.py ``page_metadata``). Hits it
  cannot route (a routing field missing) are answered in their order with a note saying why on each,
  and counted in ``biohybrid_inference_clinical_degraded_total{endpoint="clinical_route"}`` (a page
  whose hits the window's step did not answer: ``reason="no_route_step"``): never a refusal, which
  the pipeline's response step would drop without a word.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from flask import Flask, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from control_plane.clinical.intents import DEFAULT_INTENTS_FILE, IntentConfig
from control_plane.clinical.pipeline import (
    PipelineQueryError,
    RouteOutput,
    implied_note,
    page_metadata,
    plain_rewrite,
    rewrite,
    route,
    route_answered,
)
from control_plane.clinical.planning import intent_config
from control_plane.config.search_settings import FacetSettings, SectionRoutingSettings
from control_plane.config.settings import describe_errors
from control_plane.fusion.methods import FusionMethod
from control_plane.inference.faults import FaultInjector
from control_plane.inference.metrics import ServiceMetrics
from control_plane.inference.validation import RequestError
from control_plane.mlcommons.model_output import with_string_ef_search

log = logging.getLogger(__name__)
MODEL_LABEL = "clinical"
# The pipelines return chunks: the facet granularity's facet_json weight never applies to them.
_CHUNK_FACETS = FacetSettings()


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RewriteBody(_Body):
    request: dict[str, Any]
    depth: int = Field(ge=1, le=10_000)
    ef_search: int | None = Field(None, ge=1, le=100_000)


# What the route connector sends besides the hits and the query: SectionRoutingSettings' fields of the
# same names, required here and bounded as there (one declaration of the bounds: the settings model's).
ROUTE_PARAMETERS = ("weight", "min_topicality", "max_documents", "depth")


def _as_required(name: str) -> Any:
    field = SectionRoutingSettings.model_fields[name]
    return (Annotated[(field.annotation, *field.metadata)], ...)


RouteBody = create_model(
    "RouteBody",
    __base__=_Body,
    hits=(list[dict[str, Any]], Field(max_length=1000)),
    query=(dict[str, Any], ...),
    fusion=(FusionMethod | None, None),  # the pipeline's (model_config.fusion): topicality depends on it
    output=(RouteOutput, "metadata"),
    **{name: _as_required(name) for name in ROUTE_PARAMETERS},
)


def _parse(model: type[_Body], body: Any) -> Any:
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        what = model.__name__.removesuffix("Body").lower()
        raise RequestError(400, f"bad {what} request: {describe_errors(exc)}") from None


def register_clinical_routes(
    app: Flask,
    timed: Callable[[str, str, Callable[[], Any]], Response],
    body: Callable[[], Any],
    metrics: ServiceMetrics,
    faults: FaultInjector | None,
    intents_file: Path | None = None,
) -> None:
    """The two endpoints on ``app``; ``timed`` answers, counts and times a handler as the model
    endpoints do; the intents are read once here (a bad file stops the service at start)."""
    config: IntentConfig = intent_config(str(intents_file or DEFAULT_INTENTS_FILE))

    @app.post("/v1/clinical/rewrite")
    def clinical_rewrite() -> Response:
        def answer() -> dict[str, Any]:
            req: RewriteBody = _parse(RewriteBody, body())
            degraded = False
            try:
                if faults is not None and faults.take("clinical_rewrite") is not None:
                    metrics.injected_faults.labels("clinical_rewrite").inc()
                    raise RuntimeError("injected fault")
                done = rewrite(req.request, config, _CHUNK_FACETS, req.depth, req.ef_search)
            except RequestError:
                raise
            except PipelineQueryError as exc:  # the client's query form: its message says what to send
                raise RequestError(400, str(exc)) from None
            except Exception as exc:  # the clinical step broke: plain hybrid search is still served
                log.warning("clinical rewrite degraded", extra={"error": f"{type(exc).__name__}: {exc}"})
                metrics.clinical_degraded.labels("clinical_rewrite", "error").inc()
                try:
                    done = plain_rewrite(req.request, req.depth, req.ef_search)
                except PipelineQueryError as refused:
                    raise RequestError(400, str(refused)) from None
                degraded = True
            intents = [intent.name for intent in done.plan.intents]
            return {
                # an integer ef_search would reach the k-NN parser as 200.0 from another node
                "query": with_string_ef_search(done.query),
                # ml_inference writes it only where the request has a _source (else all of it is fetched)
                "source": done.source if done.source is not None else True,
                "query_text": done.text,
                "intents": intents,
                "degraded": degraded,
            }

        return timed("clinical_rewrite", MODEL_LABEL, answer)

    @app.post("/v1/clinical/route")
    def clinical_route() -> Response:
        def answer() -> dict[str, Any]:
            req = _parse(RouteBody, body())
            if faults is not None:
                fault = faults.take("clinical_route")
                if fault is not None:
                    metrics.injected_faults.labels("clinical_route").inc()
                    raise RequestError(fault.status, fault.message)
            if req.output == "page":
                try:
                    note = implied_note(req.query, config, _CHUNK_FACETS)
                except PipelineQueryError as exc:
                    raise RequestError(400, str(exc)) from None
                page = page_metadata(req.hits, note)
                if not all(route_answered(hit) for hit in req.hits):
                    metrics.clinical_degraded.labels("clinical_route", "no_route_step").inc()
                return page
            params = SectionRoutingSettings(**{name: getattr(req, name) for name in ROUTE_PARAMETERS})
            try:
                routed = route(req.hits, req.query, config, _CHUNK_FACETS, params, req.fusion)
            except PipelineQueryError as exc:
                raise RequestError(400, str(exc)) from None
            if routed.unrouted is not None:
                log.warning("clinical route not applied", extra={"reason": routed.notes[0]})
                metrics.clinical_degraded.labels("clinical_route", routed.unrouted).inc()
            return routed.answer(req.output)

        return timed("clinical_route", MODEL_LABEL, answer)
