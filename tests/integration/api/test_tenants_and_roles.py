"""Tenant isolation and roles: a key's tenant bounds every answer, whatever the request says."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from integration.api.stack import ApiStack, headers

pytestmark = pytest.mark.integration

COMBINATIONS: list[dict[str, Any]] = [
    {"components": list(components), "fusion_method": fusion, "granularity": granularity}
    for components, fusion, granularity in itertools.product(
        [("bm25",), ("splade",), ("dense",), ("bm25", "splade", "dense")],
        ["rrf", "weighted"],
        ["chunk", "document"],
    )
]
EXTRA_FILTERS: list[dict[str, Any]] = [
    {"filters": {"source": ["ctgov"]}},
    {"filters": {"section": ["eligibility"]}},
    {"query_intent": ["eligibility"], "filters": {"source": ["ctgov", "pmc", "beir"]}},
    {"rerank": True, "rerank_top_n": 50},
]


def _doc_ids(answer: dict[str, Any]) -> set[str]:
    return {r["doc_id"] for r in answer["results"]}


@pytest.mark.parametrize("params", COMBINATIONS + EXTRA_FILTERS)
def test_tenant_b_never_sees_tenant_a(stack: ApiStack, params: dict[str, Any]) -> None:
    body = {"query": "eligibility criteria adverse events trial", "size": 50, **params}
    response = stack.client().post("/v1/search", json=body, headers=headers("b-search"))
    assert response.status_code == 200, response.get_data(as_text=True)
    seen = _doc_ids(response.get_json())
    assert seen <= stack.tenant_docs["tenant-b"]
    assert not seen & stack.tenant_docs["tenant-a"]


def test_the_same_query_for_tenant_a_sees_only_a(stack: ApiStack) -> None:
    response = stack.client().post(
        "/v1/search", json={"query": "vitamin d", "size": 50}, headers=headers("a-search")
    )
    seen = _doc_ids(response.get_json())
    assert seen and seen <= stack.tenant_docs["tenant-a"]


def test_rewrite_carries_the_keys_tenant(stack: ApiStack) -> None:
    rewritten = (
        stack.client().post("/v1/rewrite", json={"query": "x"}, headers=headers("b-search")).get_json()
    )
    hybrid = rewritten["body"]["query"]["hybrid"]
    assert hybrid["filter"]["bool"]["filter"][0] == {"term": {"tenant_id": "tenant-b"}}


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/v1/admin/models"), ("get", "/v1/admin/resources"), ("post", "/v1/evaluate")],
)
def test_admin_endpoints_need_the_admin_role(stack: ApiStack, method: str, path: str) -> None:
    client = stack.client()
    assert getattr(client, method)(path, headers=headers("a-search"), json={}).status_code == 403
    assert getattr(client, method)(path, json={}).status_code == 401


def test_admin_key_reads_models_and_resources(stack: ApiStack) -> None:
    client = stack.client()
    models = client.get("/v1/admin/models", headers=headers("a-admin"))
    assert models.status_code == 200
    assert {m["role"] for m in models.get_json()} >= {"dense", "sparse", "rerank"}
    assert client.get("/v1/admin/resources", headers=headers("a-admin")).status_code == 200


def test_keys_never_reach_the_logs(stack: ApiStack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    stack.client().post("/v1/search", json={"query": "x"}, headers=headers("a-search"))
    stack.client().post("/v1/search", json={"query": "x"}, headers=headers("not-a-key"))
    logged = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
    assert caplog.records  # the requests were logged ...
    assert "s3cr3t" not in logged and "Bearer" not in logged  # ... without their keys
