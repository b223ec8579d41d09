"""Admin endpoints (role admin): resources (templates and pipelines), models, ingest and evaluate.
Ingest and evaluate run as background jobs (202 + a job id to poll)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, request
from opensearchpy import OpenSearch
from pydantic import BaseModel, ConfigDict, Field

from control_plane.api.auth import Principal
from control_plane.api.jobs import JobRegistry
from control_plane.api.responses import error_response, json_response
from control_plane.cluster.manage import apply_resources, current_resources, verify_resources
from control_plane.config.settings import Settings
from control_plane.evaluation.api import evaluate_job
from control_plane.evaluation.gauges import EvaluationGauges
from control_plane.evaluation.settings import EvaluationSettings
from control_plane.ingestion.setup import ingest_breakers
from control_plane.mlcommons.registry import models_status
from control_plane.resilience.breaker import BreakerBoard
from control_plane.search.service import SearchService

if TYPE_CHECKING:
    from control_plane.ingestion.run import IngestOptions


class IngestRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sources: list[str] = Field(min_length=1, description="dataset ids (nfcorpus, ctgov, ...) or paths")
    index: str | None = Field(None, pattern=r"^[a-z0-9][a-z0-9_\-]*$")
    strategy: str = "sentence"
    limit_documents: int | None = Field(None, ge=1)


def register_admin_routes(
    app: Flask,
    settings: Settings,
    client: OpenSearch,
    service: SearchService,
    require_admin: Callable[[], Principal],
    evaluation: EvaluationSettings,
    gauges: EvaluationGauges,
) -> None:
    jobs = JobRegistry()
    app.extensions["biohybrid.jobs"] = jobs
    # One board for every ingest job: a model that keeps failing fails the next jobs fast (circuit_open).
    breakers = ingest_breakers(settings)
    app.extensions["biohybrid.metrics"].track_breakers(breakers, path="ingest")

    @app.get("/v1/admin/resources")
    def resources() -> Response:
        require_admin()
        drift = verify_resources(client, current_resources(client, settings))
        return json_response({label: [vars(d) for d in diffs] for label, diffs in drift.items()})

    @app.post("/v1/admin/apply")
    def apply() -> Response:
        require_admin()
        results = apply_resources(client, settings, current_resources(client, settings))
        return json_response([{"resource": r.label, "action": r.action.value} for r in results])

    @app.get("/v1/admin/models")
    def models() -> Response:
        require_admin()
        return json_response([vars(m) for m in models_status(client, settings)])

    @app.post("/v1/admin/ingest")
    def ingest() -> Response:
        from control_plane.ingestion.run import IngestOptions

        who = require_admin()
        wanted = IngestRequest.model_validate(request.get_json(force=True, silent=False))
        # Built now, so an index that is not the tenant's is refused (403) before the job starts.
        options = IngestOptions.for_tenant(
            settings.index,
            who.tenant,
            wanted.index,
            strategy=wanted.strategy,
            progress=False,
            limit_documents=wanted.limit_documents,
        )
        job = jobs.submit(
            "ingest", who.tenant, lambda: _ingest(settings, client, wanted.sources, options, breakers)
        )
        return json_response(job.to_dict(), 202)

    @app.post("/v1/evaluate")
    def evaluate() -> Response:
        who = require_admin()
        body = request.get_json(force=True, silent=False)
        work = evaluate_job(
            body, settings, client, service, who.tenant, gauges=gauges, evaluation_settings=evaluation
        )
        job = jobs.submit("evaluate", who.tenant, work)
        return json_response(job.to_dict(), 202)

    @app.get("/v1/admin/jobs/<job_id>")
    def job_state(job_id: str) -> Response:
        who = require_admin()
        job = jobs.get(job_id)
        if job is None or job.tenant != who.tenant:
            return error_response(404, f"no job {job_id!r}")
        return json_response(job.to_dict())


def _ingest(
    settings: Settings,
    client: OpenSearch,
    sources: list[str],
    options: IngestOptions,
    breakers: BreakerBoard | None = None,
) -> dict[str, Any]:
    from control_plane.ingestion.bulk import DeadLetterFile
    from control_plane.ingestion.run import ingest
    from control_plane.ingestion.setup import python_encoder

    encoder, counter = python_encoder(settings, breakers)
    dead_letter = DeadLetterFile(Path(".local") / f"dead-letter-{options.tenant_id}.jsonl")
    summary = ingest(client, sources, options, encoder, dead_letter, counter)
    return {**dataclasses.asdict(summary), "index": options.index, "dead_letter": str(dead_letter.path)}
