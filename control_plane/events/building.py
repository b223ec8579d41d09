"""CloudEvents v1.0 built with the SDK: the project's event types, their source URI and the JSON form.

Types follow the issue's names (``retrieval.completed``, ``ingest.stage.started|completed|failed``,
``job.state.changed``); ``source`` is ``/biohybrid/<component>`` (api, cli, scheduler) and ``id`` a UUID4,
so (source, id) is unique per event as the spec asks; ``subject`` names what the event is about (a
job id, an index).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from cloudevents.core.bindings.http import HTTPMessage, from_structured_event, to_structured_event
from cloudevents.core.formats.json import JSONFormat
from cloudevents.core.v1.event import CloudEvent

RETRIEVAL_COMPLETED: Final = "retrieval.completed"
INGEST_STAGE_STARTED: Final = "ingest.stage.started"
INGEST_STAGE_COMPLETED: Final = "ingest.stage.completed"
INGEST_STAGE_FAILED: Final = "ingest.stage.failed"
JOB_STATE_CHANGED: Final = "job.state.changed"
EVENT_TYPES: Final = (
    RETRIEVAL_COMPLETED,
    INGEST_STAGE_STARTED,
    INGEST_STAGE_COMPLETED,
    INGEST_STAGE_FAILED,
    JOB_STATE_CHANGED,
)
CONTENT_TYPE: Final = "application/json"


def source_uri(component: str) -> str:
    """The ``source`` attribute of events emitted by ``component`` (api, cli, scheduler)."""
    return f"/biohybrid/{component}"


def build_event(
    event_type: str,
    source: str,
    data: Mapping[str, Any],
    subject: str | None = None,
    event_id: str | None = None,
    time: datetime | None = None,
) -> CloudEvent:
    """A v1.0 event with JSON data; ValueError for a type the project does not emit (a typo would reach
    every receiver)."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}; the project emits {', '.join(EVENT_TYPES)}")
    attributes: dict[str, Any] = {
        "type": event_type,
        "source": source,
        "id": event_id or str(uuid.uuid4()),
        "time": time or datetime.now(UTC),
        "datacontenttype": CONTENT_TYPE,
    }
    if subject:
        attributes["subject"] = subject
    return CloudEvent(attributes, dict(data))


def structured(event: CloudEvent) -> HTTPMessage:
    """The structured-mode HTTP message: the whole event as JSON, ``application/cloudevents+json``."""
    return to_structured_event(event, JSONFormat())


def to_json_line(event: CloudEvent) -> str:
    """One event as one line of JSON (the jsonl sink's record; the structured-mode body)."""
    return JSONFormat().write(event).decode("utf-8")


def parse(body: bytes | str) -> CloudEvent:
    """An event back from its structured JSON (what a receiver does)."""
    text = body if isinstance(body, bytes) else body.encode("utf-8")
    message = HTTPMessage(headers={"content-type": JSONFormat.CONTENT_TYPE}, body=text)
    event = from_structured_event(message)
    if not isinstance(event, CloudEvent):
        raise ValueError(f"not a CloudEvents 1.0 event: specversion {event.get_specversion()!r}")
    return event
