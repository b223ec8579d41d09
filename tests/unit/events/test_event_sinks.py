"""The jsonl sink appends one parseable event per line; an emitter that is off emits nothing, and one
whose file cannot be written counts the drop instead of failing its caller."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry

from control_plane.config.recording_settings import EventsSettings
from control_plane.events.building import INGEST_STAGE_STARTED, JOB_STATE_CHANGED, parse
from control_plane.events.emitter import EventEmitter


def _jsonl(path: Path) -> EventsSettings:
    return EventsSettings(enabled=True, sink="jsonl", path=str(path))


def test_each_event_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "events.jsonl"
    emitter = EventEmitter(_jsonl(path), "cli")
    emitter.emit(INGEST_STAGE_STARTED, {"stage": "prepare"}, subject="job1")
    emitter.emit(JOB_STATE_CHANGED, {"state": "running"})
    lines = path.read_text(encoding="utf-8").splitlines()
    events = [parse(line) for line in lines]
    assert [(e.get_type(), e.get_source(), e.get_data()) for e in events] == [
        ("ingest.stage.started", "/biohybrid/cli", {"stage": "prepare"}),
        ("job.state.changed", "/biohybrid/cli", {"state": "running"}),
    ]
    assert events[0].get_subject() == "job1"


def test_an_emitter_that_is_off_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    emitter = EventEmitter(EventsSettings(sink="jsonl", path=str(path)), "cli")
    emitter.emit(INGEST_STAGE_STARTED, {"stage": "prepare"})
    assert not emitter.enabled
    assert not path.exists()


def test_a_file_that_cannot_be_written_is_a_counted_drop(tmp_path: Path) -> None:
    registry = CollectorRegistry()
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    emitter = EventEmitter(_jsonl(blocker / "events.jsonl"), "cli", registry)
    emitter.emit(INGEST_STAGE_STARTED, {"stage": "prepare"})
    emitter.emit("no.such.type", {})
    assert registry.get_sample_value("biohybrid_events_dropped_total", {"reason": "send_failed"}) == 1
    assert registry.get_sample_value("biohybrid_events_dropped_total", {"reason": "build_failed"}) == 1
