"""SearchService's planning and degradation without a cluster: its collaborators are injected. The
cluster client and the inference service point at a port nothing listens on (a real refusal, no
stand-in), and model ids are pinned, so each decision is checked end to end through ``plan``."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from opensearchpy.exceptions import ConnectionError

from control_plane.cluster.client import make_client
from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.errors import CallerGoneError
from control_plane.search.model_ids import PinnedModelIds
from control_plane.search.service import SearchService, SearchUnavailableError
from control_plane.search.spec import SearchSpec


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def settings() -> Settings:
    """Local settings with the cluster and the inference service both unreachable."""
    local = load_settings(LOCAL_FILE, environ={})
    nowhere = f"http://127.0.0.1:{_closed_port()}"
    return local.model_copy(
        update={
            "opensearch": local.opensearch.model_copy(update={"url": nowhere}),
            "models": local.models.model_copy(update={"service_url": nowhere}),
        }
    )


def _service(settings: Settings, ids: dict[str, str] | None = None, **search: Any) -> SearchService:
    chosen = settings.model_copy(update={"search": settings.search.model_copy(update=search)})
    return SearchService(make_client(chosen.opensearch), chosen, model_ids=PinnedModelIds(ids or {}))


def _spec(**fields: Any) -> SearchSpec:
    return SearchSpec.model_validate({"query": "warfarin bleeding risk", **fields})


@pytest.fixture
def service(settings: Settings) -> Iterator[SearchService]:
    yield _service(settings)


def test_components_whose_encoder_is_down_are_dropped_with_their_reasons(
    service: SearchService,
) -> None:
    plan = service.plan(_spec(components=["bm25", "splade", "dense"]), tenant_id="t1")
    assert plan.components == ("bm25",)
    assert sorted(plan.component_errors) == ["dense_unavailable", "splade_unavailable"]
    assert plan.weights is None  # classic RRF (fusion.rrf.weights null by default)
    assert len(plan.request.body["query"]["hybrid"]["queries"]) == 1


def test_no_usable_component_is_unavailable_with_every_reason(service: SearchService) -> None:
    with pytest.raises(SearchUnavailableError) as raised:
        service.plan(_spec(components=["splade", "dense"]), tenant_id="t1")
    assert sorted(raised.value.reasons) == ["dense_unavailable", "splade_unavailable"]


def test_a_rerank_runs_after_the_fused_request_never_inside_it(settings: Settings) -> None:
    plan = _service(settings, {"rerank": "rerank-1"}).plan(_spec(components=["bm25"], rerank=True), "t1")
    assert plan.rerank_model == settings.models.rerank  # the service's model, called after fusion
    assert plan.reranker_error is None
    assert not [p for p in plan.request.pipeline.get("response_processors", []) if "rerank" in p]
    assert "ext" not in plan.request.body
    assert plan.request.body["size"] >= settings.models.rerank_top_n  # the service sees what it reranks


def test_no_rerank_unless_asked(service: SearchService) -> None:
    plan = service.plan(_spec(components=["bm25"]), tenant_id="t1")
    assert (plan.rerank_model, plan.reranker_error) == (None, None)


def test_doc_only_splade_needs_its_query_model_not_the_encoder(settings: Settings) -> None:
    doc_only = settings.model_copy(
        update={"models": settings.models.model_copy(update={"sparse_query_mode": "doc-only"})}
    )
    with_model = _service(doc_only, {"sparse_query": "sparse-q-1"}).plan(
        _spec(components=["bm25", "splade"]), tenant_id="t1"
    )
    assert with_model.components == ("bm25", "splade")
    assert with_model.encodings.sparse_model_id == "sparse-q-1"
    without = _service(doc_only).plan(_spec(components=["bm25", "splade"]), tenant_id="t1")
    assert (without.components, without.component_errors) == (("bm25",), ("splade_unavailable",))


def test_the_plan_fills_the_configured_depth_and_is_frozen(
    service: SearchService, settings: Settings
) -> None:
    plan = service.plan(_spec(components=["bm25"]), tenant_id="t1")
    assert plan.spec.candidate_depth == settings.search.candidate_depth
    with pytest.raises(AttributeError):
        plan.components = ("dense",)  # type: ignore[misc]


def test_a_seismic_chunk_index_has_no_dense_component_to_search(settings: Settings) -> None:
    # OpenSearch 3.6: one plugin codec per index, so a SEISMIC chunk index holds no k-NN field
    seismic = settings.model_copy(
        update={
            "index": settings.index.model_copy(
                update={"sparse": settings.index.sparse.model_copy(update={"method": "seismic"})}
            )
        }
    )
    plan = _service(seismic).plan(_spec(components=["bm25", "dense"]), tenant_id="t1")
    assert plan.components == ("bm25",)
    assert list(plan.component_errors) == ["dense_not_indexed"]  # not encoded at all, so no dense_unavailable


def test_a_search_whose_caller_left_stops_before_opensearch(service: SearchService) -> None:
    """The caller's connection closed (the server's check says so): the search stops before its
    OpenSearch call. The same search with the caller still there reaches OpenSearch, which is
    unreachable here, so the check is the only thing between the plan and that call."""
    spec = _spec(components=["bm25"], boosts=False)
    with pytest.raises(CallerGoneError, match="closed its connection before the search"):
        service.search(spec, tenant_id="t1", caller_gone=lambda: True)
    with pytest.raises(ConnectionError):
        service.search(spec, tenant_id="t1", caller_gone=lambda: False)
