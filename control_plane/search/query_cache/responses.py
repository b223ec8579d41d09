"""The response cache's key and rules: which answers may be stored, and how a stored one is served.

Key: the resolved request (every SearchSpec field, defaults and the configured candidate depth filled in,
as canonical JSON, so GET, POST and /retrieve forms of one search share an entry), the tenant, the
resolved index, the index-state token (index_state.py) and the models the answer depends on (the served
models' digests; the ml-commons ids of a rerank or doc-only query model). The query text is taken as sent:
it is echoed in the answer and read by intent detection, so texts are not merged here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from control_plane.search.results import CacheInfo, SearchResponse, Timings
from control_plane.search.spec import SearchSpec


def response_key(spec: SearchSpec, tenant_id: str, index: str, state: str, models: Mapping[str, str]) -> str:
    document = {
        "spec": spec.model_dump(mode="json", by_alias=True),
        "tenant": tenant_id,
        "index": index,
        "state": state,
        "models": dict(models),
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def cacheable(answer: SearchResponse, spec: SearchSpec) -> bool:
    """Only a complete answer is stored: every component used, no error, every shard answered (a degraded
    answer must not outlive the fault that caused it)."""
    meta = answer.metadata
    return (
        meta.components_used == list(spec.components)
        and not meta.component_errors
        and meta.reranker_error is None
        and not meta.partial
    )


def served_from_cache(stored: SearchResponse, info: CacheInfo, total_ms: float) -> SearchResponse:
    """The stored answer with this request's cache info and timings (no encoding, no search: only the
    index-state read, in ``opensearch_round_trip_ms``)."""
    timings = Timings(total_ms=total_ms, opensearch_round_trip_ms=info.state_ms or 0.0)
    metadata = stored.metadata.model_copy(update={"cache": info, "timings": timings})
    return stored.model_copy(update={"metadata": metadata})
