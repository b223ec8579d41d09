"""The search's degradation decisions, without a cluster: which components stay, their weights, whether
a request is reranked, and why a rerank was given up."""

from __future__ import annotations

from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError

from control_plane.search.degradation import (
    GPU_PROVIDER,
    RerankChoice,
    rerank_choice,
    rerank_failure,
    usable_components,
)

ALL = ["bm25", "splade", "dense"]


# -- components -------------------------------------------------------------------------------------


def test_components_without_an_encoding_are_dropped_bm25_never() -> None:
    assert usable_components(ALL, {"dense"}) == ["bm25", "dense"]
    assert usable_components(ALL, set()) == ["bm25"]
    assert usable_components(["splade", "dense"], set()) == []  # the service answers 503 then


def test_doc_only_splade_needs_no_query_encoding() -> None:
    assert usable_components(ALL, set(), doc_only_sparse_id="m-1") == ["bm25", "splade"]


def test_request_order_is_kept() -> None:
    assert usable_components(["dense", "bm25"], {"dense"}) == ["dense", "bm25"]


# -- rerank -----------------------------------------------------------------------------------------


def test_rerank_only_when_asked_and_deployed() -> None:
    assert rerank_choice(False, "r-1") == RerankChoice(None)
    assert rerank_choice(True, "r-1") == RerankChoice("r-1")
    assert rerank_choice(True, None) == RerankChoice(None, "unavailable")


def test_a_gpu_only_rerank_needs_the_service_on_the_gpu() -> None:
    assert rerank_choice(
        True, "r-1", requires_gpu=True, providers=[GPU_PROVIDER, "CPUExecutionProvider"]
    ) == (RerankChoice("r-1"))
    assert rerank_choice(True, "r-1", requires_gpu=True, providers=["CPUExecutionProvider"]) == RerankChoice(
        None, "gpu_unavailable"
    )
    assert rerank_choice(True, "r-1", requires_gpu=True, providers=None) == RerankChoice(None, "unavailable")


def test_a_failed_rerank_names_its_reason() -> None:
    assert rerank_failure(ConnectionTimeout("TIMEOUT", "read timed out", None)) == "timeout"
    assert rerank_failure(TransportError(500, "ml-commons: connector failed")) == "unavailable"
    assert rerank_failure(OpenSearchConnectionError("N/A", "refused", None)) == "unavailable"
