"""One response-cache lookup for SearchService: which models the answer depends on, the index state,
the key, and the stored answer if any (an index state OpenSearch cannot give bypasses the cache)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass

from opensearchpy import OpenSearch
from opensearchpy.exceptions import TransportError

from control_plane.config.settings import Settings
from control_plane.query.components import COMPONENTS
from control_plane.search.model_ids import ModelIds
from control_plane.search.query_cache.caches import QueryCaches
from control_plane.search.query_cache.index_state import index_state
from control_plane.search.query_cache.responses import response_key
from control_plane.search.results import CacheInfo, SearchResponse
from control_plane.search.spec import SearchSpec

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResponseLookup:
    info: CacheInfo
    key: str | None = None
    answer: SearchResponse | None = None


@dataclass(frozen=True)
class AnswerModels:
    """The served models (by name) and the ml-commons models (by role) a search's answer depends on."""

    served: tuple[str, ...]
    ml_roles: tuple[str, ...]


def answer_models(spec: SearchSpec, settings: Settings, dense_model: str, sparse_model: str) -> AnswerModels:
    roles = {COMPONENTS[name].encoder for name in spec.components}
    doc_only = "sparse" in roles and settings.models.sparse_query_mode == "doc-only"
    served = [dense_model] if "dense" in roles else []
    if "sparse" in roles and not doc_only:
        served.append(sparse_model)
    ml_roles = ["sparse_query"] if doc_only else []
    if spec.rerank:
        served.append(settings.models.rerank)
        ml_roles.append("rerank")
    return AnswerModels(tuple(served), tuple(ml_roles))


def lookup_response(
    caches: QueryCaches,
    client: OpenSearch,
    model_ids: ModelIds,
    spec: SearchSpec,
    tenant_id: str,
    index: str,
    models: AnswerModels,
    timeout_s: float,
) -> ResponseLookup:
    """``spec`` and ``index`` resolved (SearchService.resolve, search_index)."""
    if caches.responses is None:
        return ResponseLookup(CacheInfo())
    started = time.perf_counter()
    try:
        state: str | None = index_state(client, index, timeout_s, ml_models=bool(models.ml_roles))
    except (TransportError, KeyError, TypeError) as exc:
        log.warning("index state not read: response cache bypassed", extra={"error": str(exc)[:300]})
        state = None
    state_ms = round((time.perf_counter() - started) * 1000, 2)
    digests = caches.digests(models.served)
    if state is None or digests is None:
        caches.stats.miss("response")
        return ResponseLookup(CacheInfo(response="bypass", state_ms=state_ms))
    ids = model_ids.current() if models.ml_roles else {}
    depends_on: Mapping[str, str] = {
        **{f"served:{name}": digest for name, digest in digests.items()},
        **{f"ml:{role}": ids.get(role, "") for role in models.ml_roles},
    }
    key = response_key(spec, tenant_id, index, state, depends_on)
    answer = caches.response(key)
    return ResponseLookup(
        CacheInfo(response="miss" if answer is None else "hit", state_ms=state_ms), key, answer
    )
