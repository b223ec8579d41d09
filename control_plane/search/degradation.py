"""What a search does when a part of the stack fails: pure decisions, so they are tested without a cluster.

SearchService gathers the facts (which encodings came back, which models are deployed, what OpenSearch
raised) and these functions decide: which components stay in the request, whether the request is reranked,
and why a rerank was given up (the weights of the components that stay: the fusion settings,
config/fusion_settings.py).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from opensearchpy.exceptions import ConnectionTimeout

from control_plane.query.components import COMPONENTS

GPU_PROVIDER = "CUDAExecutionProvider"


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


@dataclass(frozen=True)
class RerankChoice:
    """The rerank model to put in the request (None: no rerank) and why not, when it was asked for."""

    model_id: str | None
    error: str | None = None


def rerank_choice(
    asked: bool,
    model_id: str | None,
    *,
    requires_gpu: bool = False,
    providers: Collection[str] | None = None,
) -> RerankChoice:
    """Rerank when asked and the model is deployed; with ``requires_gpu``, only when the service runs the
    model on the GPU (``providers``: its execution providers, None when the service did not answer)."""
    if not asked:
        return RerankChoice(None)
    if model_id is None:
        return RerankChoice(None, "unavailable")
    if requires_gpu:
        if providers is None:
            return RerankChoice(None, "unavailable")
        if GPU_PROVIDER not in providers:
            return RerankChoice(None, "gpu_unavailable")
    return RerankChoice(model_id)


def rerank_failure(exc: Exception) -> str:
    """Why a reranked request was re-sent without rerank: it overran its budget, or OpenSearch (the
    rerank processor, ml-commons or the inference service behind it) failed."""
    return "timeout" if isinstance(exc, ConnectionTimeout) else "unavailable"
