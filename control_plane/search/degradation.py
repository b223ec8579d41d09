"""What a search does when a part of the stack fails: pure decisions, so they are tested without a cluster.

SearchService gathers the facts (which encodings came back, which models are deployed, what the
reranker answered) and these functions decide: which components stay in the request (the weights of the
components that stay: the fusion settings, config/fusion_settings.py), why a rerank was not applied (the
fused order answered instead) and the reranked order of the hits.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from control_plane.query.components import COMPONENTS


def usable_components(
    requested: Sequence[str], encoded: Collection[str], *, doc_only_sparse_id: str | None = None
) -> list[str]:
    """The requested components that can run, in request order: one OpenSearch analyses the text for
    (BM25) always; one the query side encodes when its encoding came back (or, for the sparse one, the
    doc-only model OpenSearch runs itself is deployed)."""
    return [
        name for name in requested if _can_run(COMPONENTS[name].encoder, name in encoded, doc_only_sparse_id)
    ]


def _can_run(encoder: str | None, encoded: bool, doc_only_sparse_id: str | None) -> bool:
    return encoder is None or encoded or (encoder == "sparse" and doc_only_sparse_id is not None)


# Why a search asked for rerank was answered in fused order (metadata.reranker_error): the reranker missed
# its budget (timeout), its queue or the caller's share of the service was full (overloaded), it is not
# loaded or the service cannot be reached (unavailable), it runs on CPU while a GPU is required
# (gpu_unavailable; search.rerank_requires_gpu).
RERANK_REASONS = ("timeout", "overloaded", "unavailable", "gpu_unavailable")


def rerank_fallback_reason(reranked: str | None, fallback: str | None) -> str | None:
    """Why the service's 200 answer is the fused order (its ``X-Biohybrid-Reranked`` and
    ``X-Biohybrid-Rerank-Fallback`` headers), None when it applied the model's order. A service that does
    not say (no header) did not run the model under a budget: unavailable."""
    if reranked == "true":
        return None
    return fallback if fallback in RERANK_REASONS else "unavailable"


def rerank_call_failure(code: str, status: int | None) -> str:
    """Why a rerank call that got no 200 is given up: ``code`` is the client's (timeout, unavailable,
    error) and ``status`` the service's HTTP status, if it answered (429: the caller's share is full)."""
    if status == 429:
        return "overloaded"
    return "timeout" if code == "timeout" else "unavailable"


def reranked_hits(
    hits: Sequence[Mapping[str, Any]], ranking: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The fused ``hits`` in the service's order (``[{"index", "relevance_score"}]``, best first), each
    scored by its ``relevance_score``; hits the answer leaves out follow in fused order, unscored."""
    seen: set[int] = set()
    ordered: list[dict[str, Any]] = []
    for entry in ranking:
        index = int(entry["index"])
        if 0 <= index < len(hits) and index not in seen:
            seen.add(index)
            ordered.append({**hits[index], "_score": float(entry["relevance_score"])})
    ordered.extend(dict(hit) for i, hit in enumerate(hits) if i not in seen)
    return ordered
