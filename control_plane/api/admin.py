"""Admin endpoints (role admin): resources (templates and pipelines), models, ingest and evaluate.
Ingest and evaluate run as background jobs (202 + a job id to poll; an ingest refused at submission is a
400 and no job: ingestion/submission.py); every job is also recorded in the job ledger (the ``jobs``
index), which GET /v1/admin/jobs lists."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, request
from opensearchpy import OpenSearch
from pydantic import BaseModel, ConfigDict, Field, model_validator

from control_plane.api.auth import Principal
from control_plane.api.jobs import JobRegistry
from control_plane.api.responses import error_response, json_response
from control_plane.cluster.manage import apply_resources, current_resources, verify_resources
from control_plane.config.settings import Settings
from control_plane.evaluation.api import evaluate_job
from control_plane.evaluation.gauges import EvaluationGauges
from control_plane.evaluation.settings import EvaluationSettings
from control_plane.events.emitter import EventEmitter
from control_plane.events.ingest_stages import IngestStageEvents
from control_plane.ingestion.setup import ingest_breakers
from control_plane.ingestion.stages import StageListener
from control_plane.json_bodies import decode_json
from control_plane.ledger.records import (
    JobKind,
    JobRecord,
    JobState,
    document,
    evaluation_counts,
    new_job_id,
)
from control_plane.ledger.store import MAX_PAGE, JobLedger
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


RESULT_WINDOW = 10_000
"""OpenSearch's ``index.max_result_window`` of the jobs index: the deepest job a page may reach."""


class JobListQuery(BaseModel):
    """GET /v1/admin/jobs parameters: filters and one page (newest first)."""

    model_config = ConfigDict(extra="forbid")

    kind: JobKind | None = None
    state: JobState | None = None
    size: int = Field(20, ge=1, le=MAX_PAGE)
    from_: int = Field(0, ge=0, le=RESULT_WINDOW, alias="from")

    @model_validator(mode="after")
    def _within_the_window(self) -> JobListQuery:
        # the jobs index answers at most its result window: past it OpenSearch refused, a 502 (issue 73)
        if self.from_ + self.size > RESULT_WINDOW:
            raise ValueError(
                f"from + size is {self.from_ + self.size}; pages end at job {RESULT_WINDOW:,} (newest "
                "first): narrow the list with kind or state"
            )
        return self


def register_admin_routes(
    app: Flask,
    settings: Settings,
    client: OpenSearch,
    service: SearchService,
    require_admin: Callable[[], Principal],
    evaluation: EvaluationSettings,
    gauges: EvaluationGauges,
) -> None:
    ledger: JobLedger = app.extensions["biohybrid.ledger"]
    events: EventEmitter = app.extensions["biohybrid.events"]
    jobs = JobRegistry(ledger)
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
        from control_plane.ingestion.index_models import encoding_models
        from control_plane.ingestion.run import IngestOptions
        from control_plane.ingestion.submission import check_submission

        who = require_admin()
        wanted = IngestRequest.model_validate(decode_json(request.get_data()))
        # Built now, so an index that is not the tenant's is refused (403) before the job starts.
        options = IngestOptions.for_tenant(
            settings.index,
            who.tenant,
            wanted.index,
            strategy=wanted.strategy,
            progress=False,
            limit_documents=wanted.limit_documents,
            models=encoding_models(settings.models),
        )
        # 400 and no job: an index no chunk template covers, a reserved or system index (the ledger's,
        # eval-runs), an unknown strategy, a source that is not there.
        check_submission(
            settings, options.index, wanted.sources, wanted.strategy, also_reserved=[evaluation.store.index]
        )
        job_id = new_job_id()
        stages = IngestStageEvents(events, who.tenant, options.index, job_id)
        job = jobs.submit(
            "ingest",
            who.tenant,
            lambda: _ingest(settings, client, wanted.sources, options, breakers, stages),
            job_id=job_id,
            detail={"index": options.index, "sources": ",".join(wanted.sources)},
        )
        return json_response(job.to_dict(), 202)

    @app.post("/v1/evaluate")
    def evaluate() -> Response:
        who = require_admin()
        body = decode_json(request.get_data())
        work = evaluate_job(
            body, settings, client, service, who.tenant, gauges=gauges, evaluation_settings=evaluation
        )
        detail = {"test_set_id": body.get("test_set_id")} if isinstance(body, dict) else None
        job = jobs.submit("evaluate", who.tenant, work, detail=detail, counts_of=evaluation_counts)
        return json_response(job.to_dict(), 202)

    @app.get("/v1/admin/jobs")
    def job_list() -> Response:
        who = require_admin()
        wanted = JobListQuery.model_validate(dict(request.args))
        page = ledger.list(who.tenant, wanted.kind, wanted.state, wanted.from_, wanted.size)
        return json_response(
            {
                "total": page.total,
                "from": page.offset,
                "size": page.size,
                "jobs": [ledger_view(record) for record in page.jobs],
            }
        )

    @app.get("/v1/admin/jobs/<job_id>")
    def job_state(job_id: str) -> Response:
        """This process's job (with its result) while it has it, else the ledger's record."""
        who = require_admin()
        job = jobs.get(job_id)
        if job is not None and job.tenant == who.tenant:
            return json_response(job.to_dict())
        record = ledger.get(job_id, who.tenant)
        if record is None:
            return error_response(404, f"no job {job_id!r}")
        return json_response(ledger_view(record))


def ledger_view(record: JobRecord) -> dict[str, Any]:
    """A ledger record as the API shows it: the stored fields, plus ``id`` as the in-memory jobs have."""
    return {"id": record.job_id, **document(record)}


def _ingest(
    settings: Settings,
    client: OpenSearch,
    sources: list[str],
    options: IngestOptions,
    breakers: BreakerBoard | None = None,
    stages: StageListener | None = None,
) -> dict[str, Any]:
    from control_plane.ingestion.bulk import DeadLetterFile
    from control_plane.ingestion.run import ingest
    from control_plane.ingestion.setup import python_encoder

    encoder, counter = python_encoder(settings, breakers)
    dead_letter = DeadLetterFile(Path(".local") / f"dead-letter-{options.tenant_id}.jsonl")
    summary = ingest(client, sources, options, encoder, dead_letter, counter, stages)
    return {**dataclasses.asdict(summary), "index": options.index, "dead_letter": str(dead_letter.path)}
