"""Hit and miss counts per cache ("encoding", "response"), read by the API's /metrics at scrape time."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Literal

CacheName = Literal["encoding", "response"]
CACHE_NAMES: tuple[CacheName, ...] = ("encoding", "response")


@dataclass(frozen=True)
class CacheCounts:
    hits: int
    misses: int

    @property
    def hit_rate(self) -> float:
        """Hits over lookups since start; 0.0 before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0


class CacheStats:
    """Thread-safe counters. A lookup that could not be keyed (the model's digest or the index state
    unknown) counts as a miss: it was not answered from the cache."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hits = dict.fromkeys(CACHE_NAMES, 0)
        self._misses = dict.fromkeys(CACHE_NAMES, 0)

    def hit(self, cache: CacheName) -> None:
        with self._lock:
            self._hits[cache] += 1

    def miss(self, cache: CacheName) -> None:
        with self._lock:
            self._misses[cache] += 1

    def counts(self) -> dict[CacheName, CacheCounts]:
        with self._lock:
            return {name: CacheCounts(self._hits[name], self._misses[name]) for name in CACHE_NAMES}
