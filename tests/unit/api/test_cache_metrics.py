from prometheus_client import CollectorRegistry, generate_latest

from control_plane.api.cache_metrics import CacheCollector
from control_plane.search.query_cache.stats import CacheStats


def test_hits_misses_and_the_hit_rate_are_exported_per_cache() -> None:
    stats = CacheStats()
    registry = CollectorRegistry()
    registry.register(CacheCollector(stats))
    stats.hit("encoding")
    stats.miss("encoding")
    stats.miss("encoding")
    stats.miss("encoding")
    stats.hit("response")
    lines = set(generate_latest(registry).decode().splitlines())
    assert {
        'retrieve_cache_hits_total{cache="encoding"} 1.0',
        'retrieve_cache_misses_total{cache="encoding"} 3.0',
        'retrieve_cache_hit_rate{cache="encoding"} 0.25',
        'retrieve_cache_hits_total{cache="response"} 1.0',
        'retrieve_cache_misses_total{cache="response"} 0.0',
        'retrieve_cache_hit_rate{cache="response"} 1.0',
        "# TYPE retrieve_cache_hits_total counter",
        "# TYPE retrieve_cache_hit_rate gauge",
    } <= lines
