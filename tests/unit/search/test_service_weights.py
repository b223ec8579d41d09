"""Which weights a weighted search without weights gets: the query type's, else the global ones,
restricted to the components in use and rescaled (no request is sent: pure planning)."""

from __future__ import annotations

import pytest
from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.search.service import SearchService
from control_plane.search.spec import SearchSpec

ALL = ["bm25", "splade", "dense"]


def _service(enabled: bool = True) -> SearchService:
    settings = Settings()
    fusion = settings.fusion.model_copy(update={"weights_by_query_type_enabled": enabled})
    return SearchService(
        OpenSearch(hosts=["http://127.0.0.1:9"]), settings.model_copy(update={"fusion": fusion})
    )


def test_exact_terms_get_their_own_weights_other_types_the_global_ones() -> None:
    service, spec = _service(), SearchSpec(query="q")
    assert service._weights(spec, "exact_term", ALL) == pytest.approx(
        {"bm25": 0.5, "splade": 0.1, "dense": 0.4}
    )
    assert service._weights(spec, "paraphrase", ALL) == pytest.approx(
        {"bm25": 0.2, "splade": 0.2, "dense": 0.6}
    )


def test_disabled_types_and_request_weights() -> None:
    assert _service(False)._weights(SearchSpec(query="q"), "exact_term", ALL)["dense"] == pytest.approx(0.6)
    named = SearchSpec(query="q", weights={"bm25": 0.1, "splade": 0.1, "dense": 0.8})
    assert _service()._weights(named, "exact_term", ALL)["dense"] == pytest.approx(0.8)


def test_weights_of_dropped_components_are_shared_out() -> None:
    # exact_term 0.5/0.1/0.4 without splade: 0.5/0.9 and 0.4/0.9.
    weights = _service()._weights(SearchSpec(query="q"), "exact_term", ["bm25", "dense"])
    assert weights == pytest.approx({"bm25": 5 / 9, "dense": 4 / 9})
