"""Ingest stages as events: ``ingest.stage.started|completed|failed`` for each stage an ingest run reports
(control_plane/ingestion/stages.py calls these methods; this class satisfies its listener protocol)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from control_plane.events.building import INGEST_STAGE_COMPLETED, INGEST_STAGE_FAILED, INGEST_STAGE_STARTED
from control_plane.events.emitter import EventEmitter


def stage_data(stage: str, tenant: str, index: str, job_id: str | None, **extra: Any) -> dict[str, Any]:
    """The data of an ingest stage event (pure): which stage of whose ingest into which index."""
    return {"stage": stage, "tenant": tenant, "index": index, "job_id": job_id, **extra}


class IngestStageEvents:
    def __init__(self, emitter: EventEmitter, tenant: str, index: str, job_id: str | None = None) -> None:
        self.emitter = emitter
        self.tenant = tenant
        self.index = index
        self.job_id = job_id

    @property
    def _subject(self) -> str:
        return self.job_id or self.index

    def started(self, stage: str) -> None:
        data = stage_data(stage, self.tenant, self.index, self.job_id)
        self.emitter.emit(INGEST_STAGE_STARTED, data, self._subject)

    def completed(self, stage: str, counts: Mapping[str, Any]) -> None:
        data = stage_data(stage, self.tenant, self.index, self.job_id, counts=dict(counts))
        self.emitter.emit(INGEST_STAGE_COMPLETED, data, self._subject)

    def failed(self, stage: str, reason: str, error: str) -> None:
        data = stage_data(stage, self.tenant, self.index, self.job_id, reason=reason, error=error)
        self.emitter.emit(INGEST_STAGE_FAILED, data, self._subject)
