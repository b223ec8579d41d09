"""Settings ``ledger`` and ``events``: what the control plane records of its work: the job ledger's
index and the lifecycle CloudEvents (off by default)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from control_plane.config.strict import StrictSettings


class LedgerSettings(StrictSettings):
    """The job ledger (control_plane/ledger/): the index holding one document per ingest, model
    registration and evaluation job."""

    index: str = Field("jobs", pattern=r"^[a-z0-9][a-z0-9_\-]*$", description="the index of the job records")


class EventsSettings(StrictSettings):
    """Lifecycle CloudEvents (control_plane/events/): off by default; where they go and how many searches
    emit one."""

    enabled: bool = Field(False, description="emit at all")
    sink: Literal["http", "jsonl"] = Field(
        "http",
        description="http: structured-mode POST (application/cloudevents+json) to url; jsonl: one event per "
        "line appended to path",
    )
    url: str = Field("", description="the receiver (required with sink http)")
    path: str = Field(
        ".local/events.jsonl", description="the file of the jsonl sink (relative to the working folder)"
    )
    search_sample_rate: float = Field(
        0.1,
        ge=0,
        le=1,
        description="share of searches that emit retrieval.completed (1: all); ingest and job events "
        "always go",
    )
    timeout_s: float = Field(2.0, gt=0, description="the HTTP POST timeout")
    queue_size: int = Field(
        1000,
        ge=1,
        le=1_000_000,
        description="events waiting for the HTTP sender thread: a search only enqueues, so a slow receiver "
        "never slows it; a full queue drops the event (counted)",
    )
    drain_s: float = Field(
        30.0,
        gt=0,
        description="seconds a stopping process (SIGTERM) waits for the http sink to send what it queued",
    )
    include_query: bool = Field(
        False, description="put the query text in retrieval.completed (queries may hold patient details)"
    )

    @field_validator("url", "path", mode="before")
    @classmethod
    def _text(cls, value: object) -> object:
        return "" if value is None else value

    @model_validator(mode="after")
    def _sink_has_a_target(self) -> EventsSettings:
        if self.enabled and self.sink == "http" and not self.url.startswith(("http://", "https://")):
            raise ValueError(
                f"events.sink is http but events.url is {self.url!r}: set url to the receiver's http(s):// "
                "address (or BIOHYBRID__EVENTS__URL), or choose sink jsonl with a path"
            )
        if self.enabled and self.sink == "jsonl" and not self.path:
            raise ValueError("events.sink is jsonl but events.path is empty: name the file to append to")
        return self
