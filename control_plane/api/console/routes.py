"""The console's routes. ``GET /console`` and its two assets are public: a page shell that holds no data
and asks for the admin key; every endpoint the page calls is under /v1/admin/console/ and needs the
admin role, with the key sent as every API call sends it (``Authorization: Bearer``)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any, Final

from flask import Flask, Response, request
from opensearchpy import OpenSearch
from pydantic import BaseModel, ConfigDict, Field

from control_plane.api.auth import Principal
from control_plane.api.console.compare import Comparison
from control_plane.api.console.configs import CompareRequest
from control_plane.api.console.overview import overview
from control_plane.api.console.plots import default_metric, known_metrics, plot_json, plot_runs
from control_plane.api.responses import error_response, json_response
from control_plane.config.settings import Settings
from control_plane.errors import BadRequestError
from control_plane.evaluation.settings import EvaluationSettings
from control_plane.evaluation.store import MAX_HISTORY, EvalRunStore
from control_plane.search.service import SearchService

PACKAGE: Final = "control_plane.api.console"
# The page's assets (package data, beside console.html): name -> media type.
ASSETS: Final = {"console.js": "text/javascript", "console.css": "text/css"}


class RunsQuery(BaseModel):
    """GET /v1/admin/console/runs parameters."""

    model_config = ConfigDict(extra="forbid")

    metric: str | None = Field(None, min_length=1, max_length=100, description="default: ndcg@10 if stored")
    dataset: str | None = Field(None, min_length=1, max_length=500)
    limit: int = Field(200, ge=1, le=MAX_HISTORY, description="the latest runs plotted")


def asset(name: str) -> str:
    return resources.files(PACKAGE).joinpath("static", name).read_text(encoding="utf-8")


def register_console_routes(
    app: Flask,
    settings: Settings,
    client: OpenSearch,
    service: SearchService,
    require_admin: Callable[[], Principal],
    evaluation: EvaluationSettings,
    read_body: Callable[[], Any],
) -> None:
    """``require_admin``: the admin principal of the request (or its 401/403); ``read_body``: the request's
    JSON body as every route of the app reads it (or a 400 saying what to send)."""
    store = EvalRunStore(client, settings, evaluation.store.index)

    @app.get("/console")
    def console_page() -> Response:
        return Response(asset("console.html"), mimetype="text/html")

    @app.get("/console/<name>")
    def console_asset(name: str) -> Response:
        if name not in ASSETS:
            return error_response(404, f"no console asset {name!r}; the assets: {', '.join(ASSETS)}")
        return Response(asset(name), mimetype=ASSETS[name])

    @app.post("/v1/admin/console/compare")
    def console_compare() -> Response:
        who = require_admin()
        wanted = CompareRequest.model_validate(read_body())
        return json_response(Comparison(settings, client, service, who.tenant).run(wanted))

    @app.get("/v1/admin/console/runs")
    def console_runs() -> Response:
        who = require_admin()
        wanted = RunsQuery.model_validate(dict(request.args))
        runs = store.history(who.tenant, wanted.dataset, wanted.limit)
        metrics = known_metrics(runs)
        if wanted.metric is not None and runs and wanted.metric not in metrics:
            raise BadRequestError(
                f"unknown metric {wanted.metric!r}; the stored runs have: {', '.join(metrics)}"
            )
        metric = wanted.metric or default_metric(runs)
        plot = plot_json(plot_runs(runs, metric)) if metric else None
        return json_response(
            {"index": store.index, "runs": len(runs), "metric": metric, "metrics": metrics, "plot": plot}
        )

    @app.get("/v1/admin/console/overview")
    def console_overview() -> Response:
        require_admin()
        return json_response(overview(client, settings))
