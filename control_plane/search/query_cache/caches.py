"""The query cache as SearchService uses it: lookups that say hit, miss, bypass or off, and count it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from control_plane.config.search_settings import QueryCacheSettings
from control_plane.search.query_cache.encodings import EncodingKey, QueryEncodingCache, encoding_key
from control_plane.search.query_cache.lru import TtlLru
from control_plane.search.query_cache.served import ServedModels
from control_plane.search.query_cache.stats import CacheStats
from control_plane.search.results import CacheStatus, SearchResponse

Encoding = list[float] | dict[str, float]


@dataclass(frozen=True)
class EncodingLookup:
    status: CacheStatus
    key: EncodingKey | None = None
    value: Encoding | None = None


class QueryCaches:
    """Built from ``search.cache``; ``models`` reads the inference service's GET /v1/models."""

    def __init__(
        self,
        settings: QueryCacheSettings,
        models: Callable[[], Sequence[Mapping[str, Any]]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stats = CacheStats()
        self.served = ServedModels(models, settings.models_refresh_s, clock=clock)
        encoding, response = settings.encoding, settings.response
        self.encodings = (
            QueryEncodingCache(TtlLru(encoding.max_entries, encoding.ttl_s, clock))
            if encoding.enabled
            else None
        )
        self.responses: TtlLru[str, SearchResponse] | None = (
            TtlLru(response.max_entries, response.ttl_s, clock) if response.enabled else None
        )

    def encoding(self, tenant: str, component: str, model: str, query: str) -> EncodingLookup:
        """The cached encoding of ``query`` by the served ``model`` for ``tenant``, if any (per tenant, so
        no answer or latency says what another tenant asked)."""
        if self.encodings is None:
            return EncodingLookup("off")
        served = self.served.get(model)
        if served is None:
            self.stats.miss("encoding")
            return EncodingLookup("bypass")
        key = encoding_key(tenant, component, served, query)
        value = self.encodings.get(key)
        if value is None:
            self.stats.miss("encoding")
            return EncodingLookup("miss", key)
        self.stats.hit("encoding")
        return EncodingLookup("hit", key, value)

    def keep_encoding(self, lookup: EncodingLookup, value: Encoding) -> None:
        if self.encodings is not None and lookup.key is not None:
            self.encodings.put(lookup.key, value)

    def digests(self, models: Iterable[str]) -> dict[str, str] | None:
        """The served digest of each model, or None when one is unknown."""
        found = {}
        for name in models:
            served = self.served.get(name)
            if served is None:
                return None
            found[name] = served.digest
        return found

    def response(self, key: str) -> SearchResponse | None:
        if self.responses is None:
            return None
        answer = self.responses.get(key)
        if answer is None:
            self.stats.miss("response")
        else:
            self.stats.hit("response")
        return answer

    def keep_response(self, key: str, answer: SearchResponse) -> None:
        if self.responses is not None:
            self.responses.put(key, answer)
