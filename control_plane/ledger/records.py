"""A job's record and its life: queued -> running -> done | failed (with a one-word reason). Pure: the
transitions, the counts a result yields, and the stored document (the strict ``jobs`` mapping's fields,
resources/index_templates/index/jobs.json)."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from control_plane.errors import BiohybridError

JobKind = Literal["ingest", "reencode", "model_registration", "evaluation"]
JobState = Literal["queued", "running", "done", "failed"]
Origin = Literal["api", "cli", "scheduler"]
JOB_KINDS: tuple[str, ...] = ("ingest", "reencode", "model_registration", "evaluation")
JOB_STATES: tuple[str, ...] = ("queued", "running", "done", "failed")
_NEXT: dict[str, tuple[str, ...]] = {"queued": ("running", "failed"), "running": ("done", "failed")}


class JobTransitionError(BiohybridError, ValueError):
    """A state change the life of a job does not have (e.g. done -> running)."""


class JobRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    job_id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    kind: JobKind
    tenant_id: str
    state: JobState = "queued"
    origin: Origin = "api"
    reason: str | None = Field(None, description="why a failed job failed, in one word")
    error: str | None = None
    counts: dict[str, float] = Field(default_factory=dict)
    detail: dict[str, str] = Field(default_factory=dict, description="what the job was about")
    queued_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    updated_at: datetime
    duration_ms: float | None = Field(None, description="running to finished")
    host: str = ""


def new_job_id() -> str:
    return uuid.uuid4().hex[:12]


def queued(
    kind: JobKind,
    tenant_id: str,
    origin: Origin,
    detail: Mapping[str, Any] | None = None,
    job_id: str | None = None,
    now: datetime | None = None,
) -> JobRecord:
    at = now or datetime.now(UTC)
    return JobRecord(
        job_id=job_id or new_job_id(),
        kind=kind,
        tenant_id=tenant_id,
        origin=origin,
        detail={key: str(value) for key, value in (detail or {}).items() if value is not None},
        queued_at=at,
        updated_at=at,
        host=socket.gethostname(),
    )


def _move(record: JobRecord, state: JobState, now: datetime | None, **changes: Any) -> JobRecord:
    if state not in _NEXT.get(record.state, ()):
        raise JobTransitionError(f"job {record.job_id} cannot go from {record.state} to {state}")
    return record.model_copy(update={"state": state, "updated_at": now or datetime.now(UTC), **changes})


def running(record: JobRecord, now: datetime | None = None) -> JobRecord:
    at = now or datetime.now(UTC)
    return _move(record, "running", at, started_at=at)


def _finished(record: JobRecord, at: datetime) -> dict[str, Any]:
    begun = record.started_at or record.queued_at
    return {"finished_at": at, "duration_ms": round((at - begun).total_seconds() * 1000, 3)}


def done(record: JobRecord, counts: Mapping[str, float], now: datetime | None = None) -> JobRecord:
    at = now or datetime.now(UTC)
    return _move(record, "done", at, counts=dict(counts), **_finished(record, at))


def failed(
    record: JobRecord,
    reason: str,
    error: str,
    counts: Mapping[str, float] | None = None,
    now: datetime | None = None,
) -> JobRecord:
    at = now or datetime.now(UTC)
    extra = {"counts": dict(counts)} if counts is not None else {}
    return _move(record, "failed", at, reason=reason, error=error[:2000], **extra, **_finished(record, at))


def numeric_counts(result: Any, keys: tuple[str, ...] | None = None) -> dict[str, float]:
    """The numbers of a job's result (a mapping, or a pydantic model's fields): its top-level int and
    float values (booleans are not counts), only ``keys`` when given; anything else gives none."""
    if isinstance(result, BaseModel):
        result = result.model_dump(mode="json")
    if not isinstance(result, Mapping):
        return {}
    return {
        str(key): float(value)
        for key, value in result.items()
        if isinstance(value, int | float) and not isinstance(value, bool) and (keys is None or key in keys)
    }


def document(record: JobRecord) -> dict[str, Any]:
    """The stored form (dates as ISO 8601 text)."""
    return record.model_dump(mode="json")


def from_document(source: Mapping[str, Any]) -> JobRecord:
    return JobRecord.model_validate(dict(source))


def evaluation_counts(result: Any) -> dict[str, float]:
    """An evaluation's counts: judged queries, configurations run, configurations that alerted."""
    if isinstance(result, BaseModel):
        result = result.model_dump(mode="json")
    if not isinstance(result, Mapping):
        return {}
    return {
        "queries": float(result.get("query_count", 0)),
        "configurations": float(len(result.get("configurations") or ())),
        "alerts": float(len(result.get("alerts") or ())),
    }


def registration_counts(models: list[Any]) -> dict[str, float]:
    """A model registration's counts: models registered and how many of them are deployed."""
    return {
        "models": float(len(models)),
        "deployed": float(sum(1 for m in models if getattr(m, "state", None) == "DEPLOYED")),
    }
