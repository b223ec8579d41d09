"""The inference service's error series exist at 0 for every served model (and the ``unknown`` label)
before the first error, so a first burst of errors is a rise that rate() sees."""

from __future__ import annotations

from control_plane.inference.config import ServiceConfig
from control_plane.inference.host import ModelHost
from control_plane.inference.metrics import ERROR_STATUSES, ServiceMetrics

REQUESTS = "biohybrid_inference_requests_total"


def _count(metrics: ServiceMetrics, endpoint: str, model: str, status: str) -> float | None:
    return metrics.registry.get_sample_value(
        REQUESTS, {"endpoint": endpoint, "model": model, "status": status}
    )


def test_a_first_burst_of_errors_rises_from_a_scraped_zero() -> None:
    metrics = ServiceMetrics()
    ModelHost(ServiceConfig(dense_models=("bge-small",), sparse_models=("splade-tiny",)), metrics)
    before = _count(metrics, "sparse", "splade-tiny", "503")  # the scrape before the burst
    metrics.requests.labels("sparse", "splade-tiny", "503").inc(7)
    assert (before, _count(metrics, "sparse", "splade-tiny", "503")) == (0.0, 7.0)


def test_each_model_has_its_endpoints_series_and_no_other() -> None:
    metrics = ServiceMetrics()
    ModelHost(
        ServiceConfig(dense_models=("bge-small",), sparse_models=(), rerank_models=("ce-minilm",)), metrics
    )
    for status in ERROR_STATUSES:
        assert _count(metrics, "embeddings", "bge-small", status) == 0.0
        assert _count(metrics, "rerank", "bge-small", status) == 0.0  # a dense model's cosine
        assert _count(metrics, "rerank", "ce-minilm", status) == 0.0
        assert _count(metrics, "sparse", "unknown", status) == 0.0
    assert _count(metrics, "embeddings", "ce-minilm", "500") is None
