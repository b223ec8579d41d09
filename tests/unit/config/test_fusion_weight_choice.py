"""The fusion settings choose a search's weights: the request's, else the query type's or the global
ones (min-max), or ``rrf.weights`` (weighted RRF), rescaled to the components in use."""

from __future__ import annotations

import pytest

from control_plane.config.fusion_settings import FusionSettings, FusionWeights
from control_plane.config.settings import Settings

ALL = ["bm25", "splade", "dense"]


def _fusion(enabled: bool = True) -> FusionSettings:
    return Settings().fusion.model_copy(update={"weights_by_query_type_enabled": enabled})


def test_exact_terms_get_their_own_weights_other_types_the_global_ones() -> None:
    assert _fusion().weighted_weights(None, "exact_term", ALL) == pytest.approx(
        {"bm25": 0.5, "splade": 0.1, "dense": 0.4}
    )
    assert _fusion().weighted_weights(None, "paraphrase", ALL) == pytest.approx(
        {"bm25": 0.2, "splade": 0.2, "dense": 0.6}
    )


def test_disabled_types_and_request_weights() -> None:
    assert _fusion(False).weighted_weights(None, "exact_term", ALL)["dense"] == pytest.approx(0.6)
    named = {"bm25": 0.1, "splade": 0.1, "dense": 0.8}
    assert _fusion().weighted_weights(named, "exact_term", ALL)["dense"] == pytest.approx(0.8)


def test_weights_of_dropped_components_are_shared_out() -> None:
    # exact_term 0.5/0.1/0.4 without splade: 0.5/0.9 and 0.4/0.9.
    weights = _fusion().weighted_weights(None, "exact_term", ["bm25", "dense"])
    assert weights == pytest.approx({"bm25": 5 / 9, "dense": 4 / 9})


def test_rrf_weights_are_the_requests_else_the_configured_else_none() -> None:
    classic = _fusion()
    assert classic.rrf_weights(None, ALL) is None
    assert classic.rrf_weights(
        {"bm25": 0.2, "splade": 0.2, "dense": 0.6}, ["bm25", "dense"]
    ) == pytest.approx({"bm25": 0.25, "dense": 0.75})
    rrf = classic.rrf.model_copy(update={"weights": FusionWeights(bm25=0.2, splade=0.1, dense=0.7)})
    weighted = classic.model_copy(update={"rrf": rrf})
    assert weighted.rrf_weights(None, ["splade", "dense"]) == pytest.approx({"splade": 0.125, "dense": 0.875})
