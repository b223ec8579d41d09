"""What a search reads when tenants are separated by index (index.tenant_indices): the tenant's own
indices by default, a named index only if it is the tenant's (else a 403 naming index and tenant), and
the tenant_id filter kept as a second guard. Planned through SearchService with the cluster and the
inference service unreachable (nothing is sent) and a BM25-only spec (nothing to encode)."""

from __future__ import annotations

import socket

import pytest

from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.config.tenancy import TenantIndexError
from control_plane.query.components import QueryEncodings
from control_plane.search.index_choice import search_index, searches_tenant_pattern
from control_plane.search.model_ids import PinnedModelIds
from control_plane.search.request import build_request
from control_plane.search.service import SearchService
from control_plane.search.spec import SearchSpec


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _settings(tenant_indices: bool) -> Settings:
    nowhere = f"http://127.0.0.1:{_closed_port()}"
    base = Settings()
    return base.model_copy(
        update={
            "opensearch": base.opensearch.model_copy(update={"url": nowhere}),
            "models": base.models.model_copy(update={"service_url": nowhere}),
            "index": base.index.model_copy(update={"tenant_indices": tenant_indices}),
        }
    )


@pytest.fixture(scope="module")
def shared() -> Settings:
    return _settings(tenant_indices=False)


@pytest.fixture(scope="module")
def separated() -> Settings:
    return _settings(tenant_indices=True)


def _service(settings: Settings) -> SearchService:
    return SearchService(make_client(settings.opensearch), settings, model_ids=PinnedModelIds({}))


SPEC = SearchSpec.model_validate({"query": "warfarin bleeding risk", "components": ["bm25"]})


def test_shared_indices_read_the_configured_pattern_or_the_named_index(shared: Settings) -> None:
    assert search_index(shared, "acme", None) == "chunks-*"
    assert search_index(shared, "acme", "chunks-globex") == "chunks-globex"  # the tenant filter confines
    assert not searches_tenant_pattern(shared, "acme", "chunks-acme,chunks-acme-*")


def test_separated_indices_read_the_tenants_own_by_default(separated: Settings) -> None:
    assert search_index(separated, "acme", None) == "chunks-acme,chunks-acme-*"
    assert search_index(separated, "acme", "chunks-acme-pmc") == "chunks-acme-pmc"
    assert searches_tenant_pattern(separated, "acme", "chunks-acme,chunks-acme-*")
    assert not searches_tenant_pattern(separated, "acme", "chunks-acme-pmc")


@pytest.mark.parametrize("index", ["chunks-globex", "chunks-*", "chunks-acmex", "chunks-acme,chunks-globex"])
def test_separated_indices_refuse_another_tenants_index(separated: Settings, index: str) -> None:
    with pytest.raises(TenantIndexError) as refused:
        search_index(separated, "acme", index)
    assert str(refused.value).startswith(f"index {index!r} is not tenant 'acme''s")
    assert refused.value.http_status == 403


def test_the_plan_reads_the_tenants_indices_and_keeps_the_tenant_filter(separated: Settings) -> None:
    plan = _service(separated).plan(SPEC, tenant_id="acme")
    assert plan.index == plan.request.index == "chunks-acme,chunks-acme-*"
    # chunks-acme may not exist (only chunks-acme-<suffix> ones): a missing name is skipped, not a 404.
    assert plan.request.params == {"include_named_queries_score": "true", "ignore_unavailable": "true"}
    assert plan.request.to_dict()["path"] == (
        "/chunks-acme,chunks-acme-*/_search?ignore_unavailable=true&include_named_queries_score=true"
    )
    assert {"term": {"tenant_id": "acme"}} in plan.request.body["query"]["hybrid"]["filter"]["bool"]["filter"]


def test_the_plan_takes_the_tenants_named_index_as_it_is(separated: Settings) -> None:
    plan = _service(separated).plan(SPEC, tenant_id="acme", index="chunks-acme-pmc")
    assert plan.request.index == "chunks-acme-pmc"
    assert plan.request.params == {"include_named_queries_score": "true"}  # a named index must exist


def test_the_plan_refuses_another_tenants_index(separated: Settings) -> None:
    with pytest.raises(
        TenantIndexError, match=r"index 'chunks-globex' is not tenant 'acme''s.*'chunks-acme'"
    ):
        _service(separated).plan(SPEC, tenant_id="acme", index="chunks-globex")


def test_shared_indices_plan_as_before(shared: Settings) -> None:
    plan = _service(shared).plan(SPEC, tenant_id="acme")
    assert plan.request.index == "chunks-*"
    assert plan.request.params == {"include_named_queries_score": "true"}


def test_build_request_asks_to_skip_missing_indices_only_when_told(shared: Settings) -> None:
    spec = SearchSpec.model_validate({"query": "q", "components": ["bm25"], "candidate_depth": 10})
    options = {
        "tenant_id": "acme",
        "index": "chunks-acme,chunks-acme-*",
        "components": ["bm25"],
        "weights": {"bm25": 1.0},
        "encodings": QueryEncodings(),
    }
    assert "ignore_unavailable" not in build_request(spec, shared, **options).params  # type: ignore[arg-type]
    told = build_request(spec, shared, ignore_unavailable=True, **options)  # type: ignore[arg-type]
    assert told.params["ignore_unavailable"] == "true"
