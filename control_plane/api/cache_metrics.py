"""The query cache's Prometheus metrics, read from its counters at scrape time:
``retrieve_cache_hits_total``, ``retrieve_cache_misses_total`` and ``retrieve_cache_hit_rate`` (hits over
lookups since the API started), each labelled ``cache``: encoding or response. A rate over a window is
``rate(retrieve_cache_hits_total[5m]) / (rate(..hits..[5m]) + rate(retrieve_cache_misses_total[5m]))``."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from control_plane.search.query_cache.stats import CacheStats


class CacheCollector(Collector):
    def __init__(self, stats: CacheStats) -> None:
        self._stats = stats

    def collect(self) -> Iterator[Metric]:
        hits = CounterMetricFamily(
            "retrieve_cache_hits", "Query cache lookups answered from the cache", labels=["cache"]
        )
        misses = CounterMetricFamily(
            "retrieve_cache_misses",
            "Query cache lookups not answered from it (absent, expired, or not keyable)",
            labels=["cache"],
        )
        rate = GaugeMetricFamily(
            "retrieve_cache_hit_rate",
            "Hits over lookups since the API started (0 before any)",
            labels=["cache"],
        )
        for cache, counts in self._stats.counts().items():
            hits.add_metric([cache], counts.hits)
            misses.add_metric([cache], counts.misses)
            rate.add_metric([cache], counts.hit_rate)
        yield hits
        yield misses
        yield rate
