"""Prometheus metrics of the control API, on a registry of its own (one per app, so tests and
several apps in a process do not collide)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from control_plane.resilience.breaker import STATE_VALUES, BreakerBoard
from control_plane.search.degradation import RERANK_REASONS

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.65, 1.0, 2.0, 5.0)
# The statuses an error answer usually has, and why a rerank is dropped (search/degradation.py): their
# series exist at 0 from the start, so the first burst of one is a rise rate() sees, not a new series
# (rate() needs two samples of a series, and a series born at 5 has one).
ERROR_STATUSES = ("400", "401", "403", "404", "500", "502", "503")
RERANK_FALLBACK_REASONS = RERANK_REASONS


class BreakerCollector(Collector):
    """The model-call breakers (control_plane/resilience/breaker.py), read at scrape time; the ``path``
    label says whose board: query (search's query encoding) or ingest (the admin API's ingest jobs)."""

    def __init__(self) -> None:
        self._boards: dict[str, BreakerBoard] = {}

    def add(self, path: str, board: BreakerBoard) -> None:
        self._boards[path] = board

    def collect(self) -> Iterator[Metric]:
        state = GaugeMetricFamily(
            "biohybrid_api_breaker_state",
            "Circuit breaker of each model: 0 closed, 1 open (failing fast), 2 half-open",
            labels=["path", "model"],
        )
        opened = CounterMetricFamily(
            "biohybrid_api_breaker_opened", "Times each model's breaker opened", labels=["path", "model"]
        )
        for path, board in sorted(self._boards.items()):
            for model, (current, times) in board.snapshot().items():
                state.add_metric([path, model], STATE_VALUES[current])
                opened.add_metric([path, model], times)
        yield state
        yield opened


@dataclass
class ApiMetrics:
    registry: CollectorRegistry
    request_seconds: Histogram
    component_seconds: Histogram
    component_errors: Counter
    rerank_fallbacks: Counter
    intent_detections: Counter
    topk_results: Counter
    topk_component_hits: Counter
    partial_answers: Counter
    searches: Counter
    search_seconds: Histogram
    boosted_searches: Counter
    table_routed_searches: Counter
    breakers: BreakerCollector

    @classmethod
    def create(cls) -> ApiMetrics:
        registry = CollectorRegistry()
        breakers = BreakerCollector()
        registry.register(breakers)
        return cls(
            registry=registry,
            breakers=breakers,
            request_seconds=Histogram(
                "biohybrid_api_request_seconds",
                "API request latency by endpoint and status",
                ["endpoint", "status"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            component_seconds=Histogram(
                "biohybrid_api_component_seconds",
                "Time per component: query encoding (dense, splade) and the OpenSearch request (opensearch)",
                ["component"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            component_errors=Counter(
                "biohybrid_api_component_errors_total",
                "Components dropped from a search, by component and reason",
                ["component", "reason"],
                registry=registry,
            ),
            rerank_fallbacks=Counter(
                "biohybrid_api_rerank_fallbacks_total",
                "Searches answered without the asked-for rerank, by reason",
                ["reason"],
                registry=registry,
            ),
            intent_detections=Counter(
                "biohybrid_api_intent_detections_total",
                "Clinical intents detected (or set by override) in queries",
                ["intent"],
                registry=registry,
            ),
            topk_results=Counter(
                "biohybrid_api_topk_results_total",
                "Results returned (chunk granularity); denominator of each component's top-k share",
                registry=registry,
            ),
            topk_component_hits=Counter(
                "biohybrid_api_topk_component_hits_total",
                "Returned results each component retrieved; share = this / biohybrid_api_topk_results_total",
                ["component"],
                registry=registry,
            ),
            partial_answers=Counter(
                "biohybrid_api_partial_answers_total",
                "Searches answered while some shards failed (node down, no replica): results may be short",
                registry=registry,
            ),
            searches=Counter(
                "biohybrid_api_searches_total",
                "Searches answered, by mode (hybrid or the one component), fusion method and rerank outcome "
                "(off, applied, fallback); the denominator of the dashboard's rates",
                ["mode", "fusion", "rerank"],
                registry=registry,
            ),
            search_seconds=Histogram(
                "biohybrid_api_search_seconds",
                "Search latency inside the API (the answer's total_ms), by mode: hybrid or the one component",
                ["mode"],
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            boosted_searches=Counter(
                "biohybrid_api_boosted_searches_total",
                "Searches that applied an intent's section boosts (table routing counted apart), by intent",
                ["intent"],
                registry=registry,
            ),
            table_routed_searches=Counter(
                "biohybrid_api_table_routed_searches_total",
                "Searches that routed tables first (a tabular intent's is_table boost)",
                registry=registry,
            ),
        )

    def expect_errors(self, endpoints: Iterable[str]) -> None:
        """Create the ``ERROR_STATUSES`` series of each endpoint's requests, and the rerank fallbacks'
        reasons, at 0 (the alerts' rates: ops/prometheus/rules.yml)."""
        for endpoint in endpoints:
            for status in ERROR_STATUSES:
                self.request_seconds.labels(endpoint, status)
        for reason in RERANK_FALLBACK_REASONS:
            self.rerank_fallbacks.labels(reason)

    def track_breakers(self, board: BreakerBoard | None, path: str = "query") -> None:
        """Export ``board``'s breaker states and open counts (nothing when there is no board)."""
        if board is not None:
            self.breakers.add(path, board)
