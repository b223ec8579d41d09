"""Prometheus metrics of the control API, on a registry of its own (one per app, so tests and
several apps in a process do not collide)."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.65, 1.0, 2.0, 5.0)


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

    @classmethod
    def create(cls) -> ApiMetrics:
        registry = CollectorRegistry()
        return cls(
            registry=registry,
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
        )
