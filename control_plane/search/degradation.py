"""What a search does when a part of the stack fails: pure decisions, so they are tested without a cluster.

SearchService gathers the facts (which encodings came back, which models are deployed, what OpenSearch
raised) and these functions decide: which components stay in the request, with what weights, whether
the request is reranked, and why a rerank was given up.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from opensearchpy.exceptions import ConnectionTimeout

from control_plane.config.fusion_settings import FusionSettings
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


def component_weights(
    requested: Mapping[str, float] | None,
    fusion: FusionSettings,
    query_type: str,
    components: Sequence[str],
) -> dict[str, float]:
    """The request's weights, else the configured ones (per query type when enabled and set), kept for
    the components in use and rescaled to sum to 1 (equal weights when none is left above 0)."""
    if requested is not None:
        chosen: Mapping[str, float] = requested
    else:
        typed = (
            getattr(fusion.weights_by_query_type, query_type, None)
            if fusion.weights_by_query_type_enabled
            else None
        )
        chosen = (typed or fusion.weights).model_dump()
    return _rescaled(chosen, components)


def rrf_weights(
    requested: Mapping[str, float] | None, fusion: FusionSettings, components: Sequence[str]
) -> dict[str, float] | None:
    """Weighted RRF's weights: the request's, else ``fusion.rrf.weights``, kept for the components in use
    and rescaled to sum to 1 (OpenSearch demands it); None when neither names any (classic RRF)."""
    chosen = requested if requested is not None else fusion.rrf.weights
    if chosen is None:
        return None
    return _rescaled(chosen if isinstance(chosen, Mapping) else chosen.model_dump(), components)


def _rescaled(chosen: Mapping[str, float], components: Sequence[str]) -> dict[str, float]:
    kept = {name: float(chosen.get(name, 0.0)) for name in components}
    total = sum(kept.values())
    if total <= 0:
        return {name: 1.0 / len(components) for name in components}
    return {name: value / total for name, value in kept.items()}


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
