"""Prometheus counters of the event sinks, on the registry of whoever emits (the API's /metrics)."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter


@dataclass(frozen=True)
class EventMetrics:
    sent: Counter
    dropped: Counter

    @classmethod
    def create(cls, registry: CollectorRegistry | None = None) -> EventMetrics:
        registry = registry or CollectorRegistry()
        return cls(
            sent=Counter(
                "biohybrid_events_sent_total",
                "Lifecycle events delivered to the sink, by type",
                ["type"],
                registry=registry,
            ),
            dropped=Counter(
                "biohybrid_events_dropped_total",
                "Lifecycle events lost: queue_full (the http sink's queue), send_failed (the receiver or "
                "the file refused it), closed (emitted after shutdown)",
                ["reason"],
                registry=registry,
            ),
        )
