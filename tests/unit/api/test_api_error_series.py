"""The control API's error series exist at 0 before the first error, so a first burst of errors on a
status never seen is a rise that rate() sees (a series born with the burst has one sample: no rate)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry
from unit.api.unreachable import unreachable_settings

from control_plane.api.app import create_app
from control_plane.api.metrics import ERROR_STATUSES, ApiMetrics
from control_plane.evaluation.settings import load_evaluation_settings

COUNT = "biohybrid_api_request_seconds_count"


def _count(registry: CollectorRegistry, endpoint: str, status: str) -> float | None:
    return registry.get_sample_value(COUNT, {"endpoint": endpoint, "status": status})


def test_a_first_burst_of_errors_rises_from_a_scraped_zero() -> None:
    metrics = ApiMetrics.create()
    metrics.expect_errors(["/v1/search"])
    before = _count(metrics.registry, "/v1/search", "503")  # the scrape before the burst
    for _ in range(5):
        metrics.request_seconds.labels("/v1/search", "503").observe(0.01)
    after = _count(metrics.registry, "/v1/search", "503")
    assert (before, after) == (0.0, 5.0)  # increase 5 between two scrapes: rate() > 0
    assert (
        metrics.registry.get_sample_value("biohybrid_api_rerank_fallbacks_total", {"reason": "timeout"})
        == 0.0
    )


def test_the_app_creates_every_routes_error_series_but_not_the_probes() -> None:
    settings = unreachable_settings()  # the app is built, never asked
    app = create_app(settings, evaluation=load_evaluation_settings())
    registry = app.extensions["biohybrid.metrics"].registry
    assert all(_count(registry, "/v1/search", status) == 0.0 for status in ERROR_STATUSES)
    assert _count(registry, "/v1/admin/ingest", "403") == 0.0
    assert _count(registry, "/metrics", "500") is None
