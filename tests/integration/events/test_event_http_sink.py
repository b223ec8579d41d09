"""The http sink against a real receiver on loopback: a slow receiver costs the emitter nothing (events
wait in the bounded queue, the overflow is dropped and counted), and a receiver that refuses events gets
them counted as send_failed."""

from __future__ import annotations

import time

import pytest
from integration.events_receiver import running_receiver
from prometheus_client import CollectorRegistry

from control_plane.config.recording_settings import EventsSettings
from control_plane.events.building import JOB_STATE_CHANGED
from control_plane.events.emitter import EventEmitter

pytestmark = pytest.mark.integration


def _count(registry: CollectorRegistry, name: str, labels: dict[str, str]) -> float:
    return registry.get_sample_value(name, labels) or 0.0


def test_a_slow_receiver_never_slows_the_emitter_and_overflow_is_counted() -> None:
    with running_receiver(delay_s=0.3) as receiver:
        registry = CollectorRegistry()
        settings = EventsSettings(enabled=True, url=receiver.url, queue_size=2, timeout_s=5)
        emitter = EventEmitter(settings, "api", registry)
        began = time.perf_counter()
        for n in range(6):
            emitter.emit(JOB_STATE_CHANGED, {"n": n})
        assert time.perf_counter() - began < 0.2  # six events against a receiver that takes 0.3 s each
        assert emitter.flush(10)
        emitter.close()
        sent = _count(registry, "biohybrid_events_sent_total", {"type": "job.state.changed"})
        dropped = _count(registry, "biohybrid_events_dropped_total", {"reason": "queue_full"})
        # One in flight and two queued at most: at least three of the six overflowed.
        assert sent + dropped == 6 and dropped >= 3
        assert len(receiver.posts) == sent
        assert [e.get_data()["n"] for e in receiver.events()] == sorted(  # type: ignore[index]
            e.get_data()["n"]
            for e in receiver.events()  # type: ignore[index]
        )


def test_a_refused_event_is_counted_as_send_failed() -> None:
    with running_receiver(status=500) as receiver:
        registry = CollectorRegistry()
        emitter = EventEmitter(EventsSettings(enabled=True, url=receiver.url), "api", registry)
        emitter.emit(JOB_STATE_CHANGED, {"n": 1})
        assert emitter.flush(5)
        emitter.close()
        assert _count(registry, "biohybrid_events_dropped_total", {"reason": "send_failed"}) == 1
        assert _count(registry, "biohybrid_events_sent_total", {"type": "job.state.changed"}) == 0
        assert len(receiver.posts) == 1
