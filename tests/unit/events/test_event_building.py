"""Events are CloudEvents 1.0 built with the SDK: the attributes the spec requires, JSON data, a JSON line
and a structured-mode message a receiver parses back to the same event."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from cloudevents.core.v1.event import CloudEvent

from control_plane.events.building import (
    INGEST_STAGE_FAILED,
    RETRIEVAL_COMPLETED,
    build_event,
    parse,
    source_uri,
    structured,
    to_json_line,
)

AT = datetime(2026, 11, 24, 12, 30, 5, tzinfo=UTC)


def _event() -> CloudEvent:
    return build_event(
        RETRIEVAL_COMPLETED,
        source_uri("api"),
        {"tenant": "acme", "total_ms": 12.5},
        subject="acme",
        event_id="e-1",
        time=AT,
    )


def test_the_json_line_holds_the_required_and_optional_attributes() -> None:
    line = to_json_line(_event())
    assert "\n" not in line
    assert json.loads(line) == {
        "specversion": "1.0",
        "type": "retrieval.completed",
        "source": "/biohybrid/api",
        "id": "e-1",
        "time": "2026-11-24T12:30:05Z",
        "datacontenttype": "application/json",
        "subject": "acme",
        "data": {"tenant": "acme", "total_ms": 12.5},
    }


def test_structured_mode_says_cloudevents_json_and_parses_back() -> None:
    message = structured(_event())
    assert message.headers == {"content-type": "application/cloudevents+json"}
    back = parse(message.body)
    assert (back.get_type(), back.get_source(), back.get_id(), back.get_time()) == (
        "retrieval.completed",
        "/biohybrid/api",
        "e-1",
        AT,
    )
    assert back.get_data() == {"tenant": "acme", "total_ms": 12.5}


def test_ids_are_fresh_per_event_and_the_subject_is_optional() -> None:
    first = build_event(INGEST_STAGE_FAILED, "/biohybrid/cli", {"stage": "load"})
    second = build_event(INGEST_STAGE_FAILED, "/biohybrid/cli", {"stage": "load"})
    assert first.get_id() != second.get_id()
    assert first.get_subject() is None
    assert first.get_time() is not None and first.get_time().tzinfo is not None  # type: ignore[union-attr]


def test_an_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown event type 'retrieval\.complete'"):
        build_event("retrieval.complete", "/biohybrid/api", {})
