"""Where a search finds the ml-commons model ids it puts into requests (the rerank model, SPLADE's doc-only
query model): looked up in the cluster and cached briefly, or pinned when they are known in advance.

SearchService takes either, so its planning runs (and is tested) without a cluster.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Final, Protocol

from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.mlcommons.registry import deployed_model_ids

MODEL_IDS_TTL_S: Final = 30.0


class ModelIds(Protocol):
    def current(self) -> dict[str, str]:
        """``{role: model_id}`` of the deployed models."""
        ...

    def forget(self) -> None:
        """A request with one of these ids failed: the model may have been re-registered under a new id."""
        ...


class DeployedModelIds:
    """The deployed models read from ml-commons, cached for ``ttl_s`` (they change only on `models register`);
    an empty answer is never cached, so ids appear as soon as the models are registered."""

    def __init__(self, client: OpenSearch, settings: Settings, ttl_s: float = MODEL_IDS_TTL_S) -> None:
        self._client = client
        self._settings = settings
        self._ttl_s = ttl_s
        self._cached: tuple[float, dict[str, str]] = (0.0, {})
        self._lock = threading.Lock()

    def current(self) -> dict[str, str]:
        with self._lock:
            fetched_at, ids = self._cached
            if time.monotonic() - fetched_at > self._ttl_s or not ids:
                ids = deployed_model_ids(self._client, self._settings)
                self._cached = (time.monotonic(), ids)
            return dict(ids)

    def forget(self) -> None:
        with self._lock:
            self._cached = (0.0, {})


class PinnedModelIds:
    """Ids known in advance (a deployment that pins them, or a test): never looked up, never forgotten."""

    def __init__(self, ids: Mapping[str, str]) -> None:
        self._ids = dict(ids)

    def current(self) -> dict[str, str]:
        return dict(self._ids)

    def forget(self) -> None:
        """Pinned ids stay: there is nothing to look up again."""
