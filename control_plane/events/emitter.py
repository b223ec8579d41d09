"""The one object callers hold: builds events and hands them to the configured sink, or does nothing
when ``events.enabled`` is false (the default). Emitting never raises into the search, ingest or job
that emits."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from control_plane.config.recording_settings import EventsSettings
from control_plane.events.building import build_event, source_uri
from control_plane.events.metrics import EventMetrics
from control_plane.events.sampling import sampled
from control_plane.events.sinks import EventSink, HttpSink, JsonlSink

log = logging.getLogger(__name__)


def make_sink(settings: EventsSettings, metrics: EventMetrics) -> EventSink:
    if settings.sink == "http":
        return HttpSink(settings.url, settings.timeout_s, settings.queue_size, metrics, settings.drain_s)
    return JsonlSink(Path(settings.path), metrics)


class EventEmitter:
    def __init__(
        self,
        settings: EventsSettings,
        component: str,
        registry: CollectorRegistry | None = None,
        sink: EventSink | None = None,
    ) -> None:
        self.settings = settings
        self.source = source_uri(component)
        self.metrics = EventMetrics.create(registry)
        self.sink = sink or (make_sink(settings, self.metrics) if settings.enabled else None)

    @property
    def enabled(self) -> bool:
        return self.sink is not None

    def search_sampled(self, draw: float | None = None) -> bool:
        """Whether this search emits retrieval.completed (enabled and inside search_sample_rate)."""
        return self.enabled and sampled(self.settings.search_sample_rate, draw)

    def emit(self, event_type: str, data: Mapping[str, Any], subject: str | None = None) -> None:
        if self.sink is None:
            return
        try:
            self.sink.send(build_event(event_type, self.source, data, subject=subject))
        except Exception:  # telemetry must never fail what it observes; the log has the cause
            self.metrics.dropped.labels("build_failed").inc()
            log.exception("event not built", extra={"type": event_type})

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Wait until what was emitted reached the sink (or was dropped)."""
        return True if self.sink is None else self.sink.flush(timeout_s)

    def close(self) -> None:
        """Stop emitting; what the sink queued is sent first (at most ``events.drain_s``)."""
        if self.sink is not None:
            self.sink.close()


def disabled_emitter() -> EventEmitter:
    """An emitter that emits nothing (the default wherever none is passed)."""
    return EventEmitter(EventsSettings(), "none")
