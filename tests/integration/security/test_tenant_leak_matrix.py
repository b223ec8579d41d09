"""The leak matrix on the secured 2.19.1 node with the whole product: every tenant × every path a client
uses (BM25, neural and neural_sparse with query_text, hybrid through each fusion pipeline, the clinical
pipelines, rerank (hybrid-rrf-rerank: 2.19.1 cannot run the clinical rerank pipelines, see
control_plane/resources/versions.py), and /v1/search through the control API on the service account) ×
query kinds, over the wildcard ``chunks-*`` and over the tenant's own index. Each answer must hold the
tenant's own chunks and nothing else; the other tenant's index is refused (403) on every path. The
counts go to .local/secure/leak-matrix.json for the closing note."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from integration.node import REPO_ROOT
from integration.security.conftest import TENANT_USERS, SecureNode, call, not_refused

from control_plane.api.app import create_app
from control_plane.config.api_settings import ApiKey
from control_plane.query.components import DENSE_FIELD, SPARSE_FIELD, plain_search_body, text_search_body

pytestmark = pytest.mark.integration

REPORT = REPO_ROOT / ".local" / "secure" / "leak-matrix.json"
QUERY_KINDS = {
    "topic": "randomized trial of treatment in patients",
    "eligibility": "who can enroll: exclusion criteria pregnancy",
    "adverse events": "serious adverse events of the study drug",
    "dosage": "dose of the intervention in mg per day",
    "results": "primary outcome results and efficacy",
}
SIZE = 30


@dataclass(frozen=True)
class Path:
    """One way a client searches: the URL query string and the body for a question."""

    name: str
    params: str
    body: Callable[[SecureNode, str], dict[str, Any]]


def _bm25(_: SecureNode, text: str) -> dict[str, Any]:
    return {"size": SIZE, "query": {"match": {"text": text}}, "_source": ["tenant_id"]}


def _neural(node: SecureNode, text: str) -> dict[str, Any]:
    clause = {"query_text": text, "model_id": node.model_ids["dense"], "k": SIZE}
    return {"size": SIZE, "query": {"neural": {DENSE_FIELD: clause}}, "_source": ["tenant_id"]}


def _neural_sparse(node: SecureNode, text: str) -> dict[str, Any]:
    clause = {"query_text": text, "model_id": node.model_ids["sparse"]}
    return {"size": SIZE, "query": {"neural_sparse": {SPARSE_FIELD: clause}}, "_source": ["tenant_id"]}


def _hybrid(_: SecureNode, text: str) -> dict[str, Any]:
    return {**text_search_body(text, SIZE), "_source": ["tenant_id"]}


def _hybrid_reranked(node: SecureNode, text: str) -> dict[str, Any]:
    body = {**text_search_body(text, SIZE), "_source": ["tenant_id", "text"]}
    return {**body, "ext": {"rerank": {"query_context": {"query_text": text}}}}


def _clinical(_: SecureNode, text: str) -> dict[str, Any]:
    # start and the routing fields stay in _source so the pipeline's routing steps run.
    return {**plain_search_body(text, SIZE)}


PATHS = (
    Path("bm25", "", _bm25),
    Path("neural", "", _neural),
    Path("neural_sparse", "", _neural_sparse),
    Path("hybrid-minmax", "?search_pipeline=hybrid-minmax", _hybrid),
    Path("hybrid-rrf", "?search_pipeline=hybrid-rrf", _hybrid),
    Path("hybrid-rrf-rerank", "?search_pipeline=hybrid-rrf-rerank", _hybrid_reranked),
    Path("clinical-minmax", "?search_pipeline=clinical-minmax", _clinical),
    Path("clinical-rrf", "?search_pipeline=clinical-rrf", _clinical),
)
API_KEYS = {tenant: f"{tenant}-search-key" for tenant in TENANT_USERS}


def _search(node: SecureNode, tenant: str, index: str, path: Path, text: str) -> requests.Response:
    body = path.body(node, text)
    return call(node, "POST", f"{index}/_search{path.params}", TENANT_USERS[tenant], body, timeout_s=60)


def _own(node: SecureNode, tenant: str, index: str) -> bool:
    own = node.index(tenant)
    return index == own or index.startswith(f"{own}-")


@pytest.fixture(scope="module")
def matrix(secure_node: SecureNode) -> dict[str, Any]:
    """Every (tenant, path, query kind) over chunks-* and the tenant's own index: the answers' counts."""
    rows: list[dict[str, Any]] = []
    for tenant in TENANT_USERS:
        for path in PATHS:
            for kind, text in QUERY_KINDS.items():
                for target in (f"{secure_node.settings.index.prefix}-*", secure_node.index(tenant)):
                    answer = _search(secure_node, tenant, target, path, text)
                    hits = answer.json().get("hits", {}).get("hits", []) if answer.ok else []
                    foreign = [
                        h["_index"]
                        for h in hits
                        if not _own(secure_node, tenant, h["_index"])
                        or h.get("_source", {}).get("tenant_id", tenant) != tenant
                    ]
                    rows.append(
                        {
                            "tenant": tenant,
                            "path": path.name,
                            "kind": kind,
                            "target": target,
                            "status": answer.status_code,
                            "error": "" if answer.ok else answer.text[:300],
                            "hits": len(hits),
                            "foreign": len(foreign),
                        }
                    )
    return {"rows": rows}


def test_every_tenant_sees_its_own_chunks_and_nothing_else_on_every_path(matrix: dict[str, Any]) -> None:
    rows = matrix["rows"]
    failed = [
        (r["tenant"], r["path"], r["target"], r["status"], r["error"]) for r in rows if r["status"] != 200
    ]
    assert not failed, f"{len(failed)} of {len(rows)} failed: {failed[:3]}"
    assert sum(r["foreign"] for r in rows) == 0, [r for r in rows if r["foreign"]][:5]
    # Not a vacuous zero: every path finds the tenant's own chunks for every query kind.
    empty = [r for r in rows if r["hits"] == 0]
    assert not empty, empty[:5]
    _report("direct", rows)


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_the_other_tenants_index_is_refused_on_every_path(secure_node: SecureNode, path: Path) -> None:
    for tenant in TENANT_USERS:
        other = next(t for t in TENANT_USERS if t != tenant)
        answer = _search(secure_node, tenant, secure_node.index(other), path, QUERY_KINDS["topic"])
        assert answer.status_code == 403, (tenant, path.name, answer.status_code, answer.text[:300])


def test_the_control_api_on_the_service_account_keeps_each_key_to_its_tenant(
    secure_node: SecureNode,
) -> None:
    keys = tuple(
        ApiKey(sha256=hashlib.sha256(key.encode()).hexdigest(), tenant=tenant, name=key)
        for tenant, key in API_KEYS.items()
    )
    settings = secure_node.settings.model_copy(
        update={"api": secure_node.settings.api.model_copy(update={"keys": keys})}
    )
    api = create_app(settings).test_client()
    docs = {tenant: _doc_ids(secure_node, tenant) for tenant in API_KEYS}
    rows = []
    for tenant, key in API_KEYS.items():
        for kind, text in QUERY_KINDS.items():
            for extra in ({}, {"fusion_method": "rrf"}, {"rerank": True}):
                answer = api.post(
                    "/v1/search",
                    json={"query": text, "size": SIZE, **extra},
                    headers={"Authorization": f"Bearer {key}"},
                )
                body = answer.get_json()
                results = body.get("results", []) if answer.status_code == 200 else []
                foreign = [r for r in results if r["doc_id"] not in docs[tenant]]
                rows.append(
                    {
                        "tenant": tenant,
                        "path": "/v1/search",
                        "kind": kind,
                        "options": extra,
                        "status": answer.status_code,
                        "error": "" if answer.status_code == 200 else str(body)[:300],
                        "hits": len(results),
                        "foreign": len(foreign),
                        "components": body.get("metadata", {}).get("components_used"),
                        "errors": body.get("metadata", {}).get("component_errors"),
                    }
                )
    failed = [
        (r["tenant"], r["kind"], r["options"], r["status"], r["error"]) for r in rows if r["status"] != 200
    ]
    assert not failed, f"{len(failed)} of {len(rows)} failed: {failed[:3]}"
    assert all(r["hits"] > 0 for r in rows)
    assert sum(r["foreign"] for r in rows) == 0
    # The whole product answered: all three components, no degraded one.
    assert all(r["components"] == ["bm25", "splade", "dense"] and not r["errors"] for r in rows), rows[:3]
    _report("api", rows)


def _doc_ids(node: SecureNode, tenant: str) -> set[str]:
    """The documents of a tenant's index, as the service account reads them."""
    answer = node.service.search(
        index=node.index(tenant), body={"size": 10_000, "_source": ["doc_id"], "query": {"match_all": {}}}
    )
    return {hit["_source"]["doc_id"] for hit in answer["hits"]["hits"]}


def _report(section: str, rows: list[dict[str, Any]]) -> None:
    report = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    report[section] = {
        "queries_sent": len(rows),
        "foreign_results": sum(r["foreign"] for r in rows),
        "paths": sorted({r["path"] for r in rows}),
        "rows": rows,
    }
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=1))


# A connector ml-commons would accept (a partial one is refused as invalid before the permission check).
TENANT_CONNECTOR = {
    "name": "tenant-made",
    "description": "a tenant's connector",
    "version": "1",
    "protocol": "http",
    "parameters": {"endpoint": "http://127.0.0.1:9"},
    "credential": {"key": "none"},
    "actions": [
        {
            "action_type": "predict",
            "method": "POST",
            "url": "http://127.0.0.1:9/predict",
            "headers": {"content-type": "application/json"},
            "request_body": "{}",
        }
    ],
}


def test_a_tenant_may_only_predict_with_ml_commons(secure_node: SecureNode) -> None:
    """The neural paths above run ml-commons predict as the tenant (the role grants it, and the matrix
    shows it works); everything else about models and connectors is refused."""
    user = TENANT_USERS["acme"]
    dense = secure_node.model_ids["dense"]
    attempts = [
        ("GET", f"_plugins/_ml/models/{dense}", None),
        ("POST", "_plugins/_ml/models/_search", {"query": {"match_all": {}}}),
        ("POST", "_plugins/_ml/connectors/_search", {"query": {"match_all": {}}}),
        ("POST", "_plugins/_ml/model_groups/_search", {"query": {"match_all": {}}}),
        ("POST", "_plugins/_ml/models/_register", {"name": "tenant-made", "function_name": "remote"}),
        ("POST", "_plugins/_ml/connectors/_create", TENANT_CONNECTOR),
        ("POST", "_plugins/_ml/model_groups/_register", {"name": "tenant-made"}),
        ("POST", f"_plugins/_ml/models/{dense}/_undeploy", None),
        ("POST", f"_plugins/_ml/models/{dense}/_deploy", None),
        ("DELETE", f"_plugins/_ml/models/{dense}", None),
    ]
    assert not_refused(secure_node, user, attempts) == []


def test_the_service_account_is_refused_what_the_control_plane_does_not_own(secure_node: SecureNode) -> None:
    user = secure_node.settings.opensearch.username
    assert user == "biohybrid_control_plane"
    attempts = [
        ("PUT", "not-a-project-index/_doc/one", {"text": "x"}),
        ("GET", "not-a-project-index/_search", None),
        ("GET", ".opendistro_security/_search", None),
        ("GET", "_plugins/_security/api/roles", None),
        ("PUT", "_plugins/_security/api/internalusers/intruder", {"password": "Intruder-12345!"}),
    ]
    assert not_refused(secure_node, user, attempts) == []
