"""The search's degradation decisions, without a cluster: which components stay, their weights, whether
a request is reranked, and why a rerank was given up."""

from __future__ import annotations

import pytest
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError

from control_plane.config.fusion_settings import FusionSettings
from control_plane.config.settings import Settings
from control_plane.search.degradation import (
    GPU_PROVIDER,
    RerankChoice,
    component_weights,
    rerank_choice,
    rerank_failure,
    usable_components,
)

ALL = ["bm25", "splade", "dense"]


def _fusion(enabled: bool = True) -> FusionSettings:
    return Settings().fusion.model_copy(update={"weights_by_query_type_enabled": enabled})


# -- components -------------------------------------------------------------------------------------


def test_components_without_an_encoding_are_dropped_bm25_never() -> None:
    assert usable_components(ALL, {"dense"}) == ["bm25", "dense"]
    assert usable_components(ALL, set()) == ["bm25"]
    assert usable_components(["splade", "dense"], set()) == []  # the service answers 503 then


def test_doc_only_splade_needs_no_query_encoding() -> None:
    assert usable_components(ALL, set(), doc_only_sparse_id="m-1") == ["bm25", "splade"]


def test_request_order_is_kept() -> None:
    assert usable_components(["dense", "bm25"], {"dense"}) == ["dense", "bm25"]


# -- weights (the query type's, else the global ones; rescaled to the components in use) ------------


def test_exact_terms_get_their_own_weights_other_types_the_global_ones() -> None:
    assert component_weights(None, _fusion(), "exact_term", ALL) == pytest.approx(
        {"bm25": 0.5, "splade": 0.1, "dense": 0.4}
    )
    assert component_weights(None, _fusion(), "paraphrase", ALL) == pytest.approx(
        {"bm25": 0.2, "splade": 0.2, "dense": 0.6}
    )


def test_disabled_types_and_request_weights() -> None:
    assert component_weights(None, _fusion(False), "exact_term", ALL)["dense"] == pytest.approx(0.6)
    named = {"bm25": 0.1, "splade": 0.1, "dense": 0.8}
    assert component_weights(named, _fusion(), "exact_term", ALL)["dense"] == pytest.approx(0.8)


def test_weights_of_dropped_components_are_shared_out() -> None:
    # exact_term 0.5/0.1/0.4 without splade: 0.5/0.9 and 0.4/0.9.
    weights = component_weights(None, _fusion(), "exact_term", ["bm25", "dense"])
    assert weights == pytest.approx({"bm25": 5 / 9, "dense": 4 / 9})


def test_only_zero_weights_left_become_equal_weights() -> None:
    named = {"bm25": 0.0, "splade": 0.0, "dense": 1.0}
    assert component_weights(named, _fusion(), "paraphrase", ["bm25", "splade"]) == {
        "bm25": 0.5,
        "splade": 0.5,
    }


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
