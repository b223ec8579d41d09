"""The cache inside SearchService, without a cluster: the inference service is a port nothing listens
on (a real refusal), so no model digest is known and every encoding bypasses the cache."""

import socket
from typing import Any

from control_plane.cluster.client import make_client
from control_plane.config.search_settings import CacheStoreSettings
from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.search.encoders import InferenceClient
from control_plane.search.model_ids import PinnedModelIds
from control_plane.search.query_cache.served import ServedModels
from control_plane.search.service import SearchService
from control_plane.search.spec import SearchSpec


def _nowhere() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def _settings(**cache: Any) -> Settings:
    local = load_settings(LOCAL_FILE, environ={})
    url = _nowhere()
    search = local.search.model_copy(update={"cache": local.search.cache.model_copy(update=cache)})
    return local.model_copy(
        update={
            "opensearch": local.opensearch.model_copy(update={"url": url}),
            "models": local.models.model_copy(update={"service_url": url}),
            "search": search,
        }
    )


def _plan_cache(settings: Settings) -> dict[str, str]:
    service = SearchService(make_client(settings.opensearch), settings, model_ids=PinnedModelIds({}))
    spec = SearchSpec.model_validate({"query": "warfarin", "components": ["bm25", "splade", "dense"]})
    plan = service.plan(spec, tenant_id="t1")
    assert sorted(plan.component_errors) == ["dense_unavailable", "splade_unavailable"]
    counts = service.caches.stats.counts()["encoding"]
    return {**plan.encoding_cache, "hits": str(counts.hits), "misses": str(counts.misses)}


def test_without_a_served_digest_each_encoding_bypasses_the_cache_and_counts_as_a_miss() -> None:
    assert _plan_cache(_settings()) == {"dense": "bypass", "splade": "bypass", "hits": "0", "misses": "2"}


def test_a_disabled_encoding_cache_says_off_and_counts_nothing() -> None:
    off = CacheStoreSettings(enabled=False, max_entries=1, ttl_s=1)
    assert _plan_cache(_settings(encoding=off)) == {
        "dense": "off",
        "splade": "off",
        "hits": "0",
        "misses": "0",
    }


def test_a_failed_read_of_the_served_models_is_retried_only_after_the_retry_delay() -> None:
    client = InferenceClient(_nowhere(), "bge-small", "splade-tiny")
    now, reads = [0.0], []

    def read() -> list[dict[str, Any]]:
        reads.append(now[0])
        return client.models(1.0)

    served = ServedModels(read, refresh_s=60, retry_s=5, clock=lambda: now[0])
    assert served.get("bge-small") is None
    now[0] = 4.9
    assert served.get("bge-small") is None
    now[0] = 5.0
    assert served.get("bge-small") is None
    assert reads == [0.0, 5.0]
