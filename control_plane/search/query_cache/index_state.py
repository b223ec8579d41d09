"""A token of everything outside the API process that can change a search's answer, read from OpenSearch
on every response-cache lookup, so an ingest, an `apply` or a model re-registration made by ANY process
makes the next identical request a miss (a TTL alone would serve stale answers until it ran out).

- ingest, delete, refresh: the searched indices' stats (uuid, indexing.index_total and delete_total,
  refresh.total, summed over every shard copy). Documents become visible only through a refresh, which
  is counted once it has completed, and the token is read BEFORE the search: an answer is at worst
  stored under an older token than what it saw, which no later lookup computes again. An index that
  appears under the pattern, or is deleted and recreated, changes the token too.
- apply (templates, pipelines, index settings): the cluster state version.
- model re-registration: ml-commons' models (count and latest last_updated_time), read only when the
  request uses an ml-commons model (a rerank, or SPLADE's doc-only query model). A search that does not
  is answered by the inference service's models, whose digests are part of the key instead.

Each read is a small request (measured per search: ``metadata.cache.state_ms``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from opensearchpy import OpenSearch

_STATS_FIELDS = ",".join(
    f"indices.*.{field}"
    for field in (
        "uuid",
        "total.indexing.index_total",
        "total.indexing.delete_total",
        "total.refresh.total",
    )
)
_MODELS_STAMP = {
    "size": 0,
    "track_total_hits": True,
    "aggs": {"updated": {"max": {"field": "last_updated_time"}}},
}


def index_state(client: OpenSearch, index: str, timeout_s: float, *, ml_models: bool) -> str:
    """The token for searches of ``index`` (a name, pattern or comma-separated list). Raises the client's
    TransportError / ConnectionError when OpenSearch cannot say (the caller then bypasses the cache)."""
    stats = client.indices.stats(
        index=index,
        metric="indexing,refresh",
        params={
            "filter_path": _STATS_FIELDS,
            "ignore_unavailable": "true",
            "allow_no_indices": "true",
            "request_timeout": timeout_s,
        },
    )
    state = client.cluster.state(metric="version", params={"request_timeout": timeout_s})
    parts: dict[str, Any] = {
        "indices": stats.get("indices", {}),
        "cluster_state": [state.get("cluster_uuid"), state.get("version")],
    }
    if ml_models:
        answer = client.transport.perform_request(
            "POST", "/_plugins/_ml/models/_search", body=_MODELS_STAMP, params={"request_timeout": timeout_s}
        )
        parts["ml_models"] = [answer["hits"]["total"]["value"], answer["aggregations"]["updated"]["value"]]
    return state_token(parts)


def state_token(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]
