"""Prometheus metrics of the inference service, in a registry of its own (one per app: tests make many).

GPU memory and utilisation are read from ``nvidia-smi`` at scrape time, and only when a session runs on
CUDA: onnxruntime exposes no memory figure, and a CPU host has nothing to report. Model time on the GPU
(``gpu_embedding_duration_seconds``, the spec's name) is observed only for models whose session runs on
CUDA; with no such model none of the GPU series is registered (/v1/models says ``"gpu_metrics": false``).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# The statuses a model call's error answer usually has (a bad request, an unknown model, a failure,
# shedding or a GPU failure): created at 0, so a first burst of one is a rise rate() sees rather than a
# new series (rate() needs two samples of a series).
ERROR_STATUSES = ("400", "404", "500", "503")
# The endpoints that serve each model role (control_plane/inference/app.py; a dense model's cosine is
# served on /v1/rerank too).
ROLE_ENDPOINTS = {"dense": ("embeddings", "rerank"), "sparse": ("sparse",), "rerank": ("rerank",)}
UNKNOWN_MODEL = "unknown"


@dataclass(frozen=True)
class GpuReading:
    gpu: str
    used_bytes: float
    total_bytes: float
    utilization: float | None
    """Share of the last sample period a kernel ran, 0-1 (None: the driver does not report it)."""


def parse_gpu_query(out: str) -> list[GpuReading]:
    """``nvidia-smi --query-gpu=index,memory.used,memory.total,utilization.gpu --format=csv,noheader,nounits``
    output (MiB and percent), one GPU a line; "[N/A]" utilisation (some virtual GPUs) is None."""
    readings = []
    for line in out.strip().splitlines():
        index, used_mib, total_mib, percent = (part.strip() for part in line.split(","))
        utilization = float(percent) / 100 if percent.replace(".", "", 1).isdigit() else None
        readings.append(GpuReading(index, float(used_mib) * 2**20, float(total_mib) * 2**20, utilization))
    return readings


class GpuMemoryCollector(Collector):
    """Used and total memory and utilisation per GPU, from nvidia-smi (absent if the tool is)."""

    def collect(self) -> Iterator[Metric]:
        tool = shutil.which("nvidia-smi")
        if tool is None:
            return
        query = "--query-gpu=index,memory.used,memory.total,utilization.gpu"
        try:
            out = subprocess.run(
                [tool, query, "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=2,
                check=True,
            ).stdout
            readings = parse_gpu_query(out)
        except (OSError, subprocess.SubprocessError, ValueError):
            return
        used = GaugeMetricFamily("biohybrid_gpu_memory_used_bytes", "GPU memory in use", labels=["gpu"])
        total = GaugeMetricFamily("biohybrid_gpu_memory_total_bytes", "GPU memory size", labels=["gpu"])
        busy = GaugeMetricFamily(
            "biohybrid_gpu_utilization_ratio", "Share of time a GPU kernel ran (0-1)", labels=["gpu"]
        )
        for reading in readings:
            used.add_metric([reading.gpu], reading.used_bytes)
            total.add_metric([reading.gpu], reading.total_bytes)
            if reading.utilization is not None:
                busy.add_metric([reading.gpu], reading.utilization)
        yield used
        yield total
        yield busy


# Why a rerank with a budget answered the first-stage order (biohybrid_inference_rerank_fallbacks_total).
RERANK_FALLBACK_REASONS = ("timeout", "overloaded", "unavailable", "gpu_unavailable")


class ServiceMetrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.requests = Counter(
            "biohybrid_inference_requests",
            "Requests answered, by endpoint, model and HTTP status",
            ["endpoint", "model", "status"],
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "biohybrid_inference_request_seconds",
            "Request latency (queueing included), by endpoint and model",
            ["endpoint", "model"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.batch_seconds = Histogram(
            "biohybrid_inference_batch_seconds",
            "Model latency per batch (tokenization and ONNX Runtime)",
            ["model"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.batch_size = Histogram(
            "biohybrid_inference_batch_size",
            "Texts per model call, merged across requests",
            ["model"],
            buckets=_BATCH_BUCKETS,
            registry=self.registry,
        )
        self.shed_items = Counter(
            "biohybrid_inference_shed_items",
            "Texts or pairs dropped unscored because their caller had already given up (timed out)",
            ["model"],
            registry=self.registry,
        )
        self.queries_cut = Counter(
            "biohybrid_inference_queries_cut",
            "Query texts cut to max_query_tokens before encoding (the rest would cost time and not be read "
            "by a query model), by model",
            ["model"],
            registry=self.registry,
        )
        self.caller_requests = Counter(
            "biohybrid_inference_caller_requests",
            "Model and clinical requests admitted, by caller (X-Biohybrid-Caller: api, ingest, opensearch, "
            "unnamed, other)",
            ["caller"],
            registry=self.registry,
        )
        self.caller_refusals = Counter(
            "biohybrid_inference_caller_refusals",
            "Requests refused with 429 because their caller (X-Biohybrid-Caller: api, ingest, opensearch, "
            "unnamed, other) already held its share of the request threads (limit threads) or sent past "
            "its rate (limit rate), by caller and limit",
            ["caller", "limit"],
            registry=self.registry,
        )
        self.unverified_callers = Counter(
            "biohybrid_inference_unverified_callers",
            "Requests that named a project caller (api, ingest, opensearch) without the caller token, and "
            "were counted as 'other', by the name claimed",
            ["claimed"],
            registry=self.registry,
        )
        self.queue_depth = Gauge(
            "biohybrid_inference_queue_depth", "Requests waiting per model", ["model"], registry=self.registry
        )
        self.model_ready = Gauge(
            "biohybrid_inference_model_ready",
            "1 when the model is loaded, by model and execution provider",
            ["model", "provider"],
            registry=self.registry,
        )
        self.injected_faults = Counter(
            "biohybrid_inference_injected_faults",
            "Calls answered with an injected fault (/admin/faults, only with --fault-injection), by endpoint",
            ["endpoint"],
            registry=self.registry,
        )
        self.clinical_degraded = Counter(
            "biohybrid_inference_clinical_degraded",
            "Clinical pipeline calls whose clinical step did not run: a rewrite that answered the plain "
            "hybrid query (reason error), a route that answered the hits unrouted with a note on each "
            "(reason missing_fields, duplicate_ids), a page whose hits the route step left without a note "
            "(reason no_route_step), by endpoint and reason; a failed route answer is in requests_total",
            ["endpoint", "reason"],
            registry=self.registry,
        )
        self.rerank_fallbacks = Counter(
            "biohybrid_inference_rerank_fallbacks",
            "Rerank calls with a budget (budget_ms: the -rerank pipelines' connector, /v1/search) answered "
            "with the first-stage (fused) order instead of the model's, by model and reason: timeout (the "
            "model missed the budget), overloaded (its queue was full), unavailable (not loaded), "
            "gpu_unavailable (requires_gpu and the model runs on CPU)",
            ["model", "reason"],
            registry=self.registry,
        )
        for endpoint, reason in (  # a first failure must be visible to rate()
            ("clinical_rewrite", "error"),
            ("clinical_route", "missing_fields"),
            ("clinical_route", "duplicate_ids"),
            ("clinical_route", "no_route_step"),
        ):
            self.clinical_degraded.labels(endpoint, reason)
        self._gpu: GpuMemoryCollector | None = None
        self._gpu_models: set[str] = set()
        self.gpu_seconds: Histogram | None = None

    @property
    def gpu_enabled(self) -> bool:
        """Whether the GPU series are exported (some model's session runs on CUDA)."""
        return self._gpu is not None

    def enable_gpu(self, model: str) -> None:
        """``model`` runs on a GPU: export the GPU gauges and its time (gpu_embedding_duration_seconds)."""
        self.enable_gpu_memory()
        if self.gpu_seconds is None:
            self.gpu_seconds = Histogram(
                "gpu_embedding_duration_seconds",
                "Model time per batch on the GPU (tokenization and ONNX Runtime), by model",
                ["model"],
                buckets=_LATENCY_BUCKETS,
                registry=self.registry,
            )
        self._gpu_models.add(model)

    def expect_models(self, roles: dict[str, str]) -> None:
        """Create the ``ERROR_STATUSES`` series of every served model (``{name: role}``) on its endpoint,
        and of the ``unknown`` model label on every endpoint, at 0."""
        served = [(endpoint, model) for model, role in roles.items() for endpoint in ROLE_ENDPOINTS[role]]
        unknown = [(endpoint, UNKNOWN_MODEL) for endpoint in ("embeddings", "sparse", "rerank")]
        for endpoint, model in [*served, *unknown]:
            for status in ERROR_STATUSES:
                self.requests.labels(endpoint, model, status)
        for model, role in roles.items():
            if role == "rerank":
                for reason in RERANK_FALLBACK_REASONS:
                    self.rerank_fallbacks.labels(model, reason)

    def observe_batch(self, model: str, size: int, seconds: float) -> None:
        self.batch_size.labels(model).observe(size)
        self.batch_seconds.labels(model).observe(seconds)
        if self.gpu_seconds is not None and model in self._gpu_models:
            self.gpu_seconds.labels(model).observe(seconds)

    def observe_shed(self, model: str, items: int) -> None:
        self.shed_items.labels(model).inc(items)

    def track_queue(self, model: str, depth: Callable[[], int]) -> None:
        self.queue_depth.labels(model).set_function(lambda: float(depth()))

    def enable_gpu_memory(self) -> None:
        if self._gpu is None:
            self._gpu = GpuMemoryCollector()
            self.registry.register(self._gpu)
