"""Which model the inference service serves under each name, as the encoding cache needs it: the model's
digest (its files and options, GET /v1/models) and its text normaliser. Read once and again every
``refresh_s`` (not per request), so a model swapped under the same name stops being served from the cache
within that time; a failed read keeps what was known and is retried after ``retry_s``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from control_plane.search.encoders import ComponentError
from control_plane.search.query_cache.normalise import Normaliser, query_normaliser

log = logging.getLogger(__name__)
RETRY_S = 5.0


@dataclass(frozen=True)
class ServedModel:
    name: str
    digest: str
    normalise: Normaliser


class ServedModels:
    """``get(name)``: the served model, or None while the service has not reported a digest for it (not
    loaded, failed, unreachable, or a service too old to report digests: such queries are not cached)."""

    def __init__(
        self,
        fetch: Callable[[], Sequence[Mapping[str, Any]]],
        refresh_s: float,
        retry_s: float = RETRY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self._refresh_s = refresh_s
        self._retry_s = min(retry_s, refresh_s)
        self._clock = clock
        self._models: dict[str, ServedModel] = {}
        self._next_read = float("-inf")
        self._lock = threading.Lock()

    def get(self, name: str) -> ServedModel | None:
        with self._lock:
            if self._clock() >= self._next_read:
                self._read()
            return self._models.get(name)

    def _read(self) -> None:
        try:
            reported = self._fetch()
        except (ComponentError, ValueError) as exc:  # unreachable, or an answer that is not JSON
            log.warning("served models not read", extra={"reason": str(exc)[:300]})
            self._next_read = self._clock() + self._retry_s
            return
        known = {model.name: model for model in self._models.values()}
        models: dict[str, ServedModel] = {}
        for entry in reported:
            name, digest = str(entry.get("name", "")), entry.get("digest")
            if not name or not isinstance(digest, str) or not digest:
                continue
            previous = known.get(name)
            if previous is not None and previous.digest == digest:
                models[name] = previous  # same model: keep its normaliser
            else:
                models[name] = ServedModel(name, digest, query_normaliser(entry.get("tokenizer")))
        self._models = models
        self._next_read = self._clock() + (self._refresh_s if models else self._retry_s)
