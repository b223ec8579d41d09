"""The API's breaker series: state per model (0 closed, 1 open, 2 half-open) and times opened, per board."""

from __future__ import annotations

from prometheus_client import generate_latest

from control_plane.api.metrics import ApiMetrics
from control_plane.resilience.breaker import BreakerBoard, BreakerSettings


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_breaker_states_and_openings_are_exported_per_path_and_model() -> None:
    clock = Clock()
    query, ingest = (
        BreakerBoard(BreakerSettings(2, 10.0), clock),
        BreakerBoard(BreakerSettings(1, 10.0), clock),
    )
    metrics = ApiMetrics.create()
    metrics.track_breakers(query)
    metrics.track_breakers(ingest, path="ingest")
    metrics.track_breakers(None)
    for _ in range(2):
        query.get("bge-small").record_failure()
    query.get("splade-tiny").record_success()
    ingest.get("bge-small").record_failure()
    clock.now = 10.0
    assert ingest.get("bge-small").allow()  # its probe: half-open
    text = generate_latest(metrics.registry).decode()
    assert 'biohybrid_api_breaker_state{model="bge-small",path="query"} 1.0' in text
    assert 'biohybrid_api_breaker_state{model="splade-tiny",path="query"} 0.0' in text
    assert 'biohybrid_api_breaker_state{model="bge-small",path="ingest"} 2.0' in text
    assert 'biohybrid_api_breaker_opened_total{model="bge-small",path="query"} 1.0' in text
    assert 'biohybrid_api_breaker_opened_total{model="splade-tiny",path="query"} 0.0' in text
