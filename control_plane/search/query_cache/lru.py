"""A bounded, thread-safe LRU map whose entries also expire: the store of both query caches.

In memory only: a cache of query encodings and answers is cheap to lose (a restart costs a few misses) and
must never outgrow the API process, so it holds at most ``max_entries`` and drops an entry ``ttl_s`` after it
was stored. The clock is injectable so expiry is tested without sleeping.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TtlLru(Generic[K, V]):
    """``get`` returns a live entry (and marks it most recently used) or None; ``put`` stores and evicts
    the least recently used entry beyond ``max_entries``."""

    def __init__(self, max_entries: int, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        if max_entries < 1 or ttl_s <= 0:
            raise ValueError(f"max_entries must be >= 1 and ttl_s > 0, got {max_entries} and {ttl_s}")
        self.max_entries = max_entries
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            stored_at, value = entry
            if self._clock() - stored_at >= self.ttl_s:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = (self._clock(), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
