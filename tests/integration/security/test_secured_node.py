"""The secured configuration the role renders, exercised on a real security-plugin node: TLS on HTTP
and transport with the role's certificates, no anonymous access, each tenant's role reads only its own
chunks (BM25 and k-NN) and writes nothing, the control plane's service account writes, and no tenant
reaches the search-pipeline, template, cluster-settings, snapshot or security APIs."""

from __future__ import annotations

import json
import socket
import ssl
from typing import Any

import pytest
import requests
from integration.security.conftest import TENANT_USERS, SecureNode, call, not_refused

from control_plane.models.dense import DenseEncoder

HOST, HTTP_PORT, TRANSPORT_PORT = "127.0.0.1", 9221, 9321
QUERY = "randomized trial of treatment and adverse events"


def tenant_search(node: SecureNode, tenant: str, index: str, query: dict[str, Any]) -> requests.Response:
    return call(node, "POST", f"{index}/_search", TENANT_USERS[tenant], {"size": 200, "query": query})


@pytest.fixture(scope="module")
def query_vector(secure_node: SecureNode) -> list[float]:
    encoder = DenseEncoder.load(secure_node.settings.models.dense)
    return [float(x) for x in encoder.encode_queries([QUERY])[0]]


def test_http_speaks_only_tls_with_the_roles_certificate(secure_node: SecureNode) -> None:
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(f"http://{HOST}:{HTTP_PORT}/", timeout=10)
    with pytest.raises(requests.exceptions.SSLError):  # not signed by a CA the system trusts
        requests.get(secure_node.url, timeout=10)
    answer = requests.get(secure_node.url, verify=str(secure_node.ca_file), timeout=10)
    assert answer.status_code == 401  # the certificate checks out; anonymous is refused


def test_transport_speaks_tls_with_the_nodes_certificate(secure_node: SecureNode) -> None:
    context = ssl.create_default_context(cafile=str(secure_node.ca_file))
    context.check_hostname = False
    with (
        socket.create_connection((HOST, TRANSPORT_PORT), timeout=10) as raw,
        context.wrap_socket(raw) as tls,
    ):
        subject = dict(part[0] for part in tls.getpeercert()["subject"])
    assert subject == {"organizationName": "biohybrid", "commonName": "secure-1"}


def test_anonymous_requests_are_refused(secure_node: SecureNode) -> None:
    for method, path in [
        ("GET", "_cluster/health"),
        ("POST", "chunks-acme/_search"),
        ("GET", "_cat/indices"),
    ]:
        assert call(secure_node, method, path, None).status_code == 401, path
    wrong = requests.get(
        f"{secure_node.url}/_cluster/health",
        auth=("acme_reader", "not-the-password"),
        verify=str(secure_node.ca_file),
        timeout=10,
    )
    assert wrong.status_code == 401


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_a_tenant_reads_its_own_chunks_through_bm25_and_nothing_else(
    secure_node: SecureNode, tenant: str
) -> None:
    other = next(t for t in TENANT_USERS if t != tenant)
    match_all_text = {"match": {"text": "patients"}}
    everywhere = tenant_search(secure_node, tenant, f"{secure_node.settings.index.prefix}-*", match_all_text)
    assert everywhere.status_code == 200, everywhere.text
    hits = everywhere.json()["hits"]["hits"]
    assert hits, "a BM25 query over every chunk index found none of the tenant's own chunks"
    assert {hit["_index"] for hit in hits} == {secure_node.index(tenant)}
    assert {hit["_source"]["tenant_id"] for hit in hits} == {tenant}
    counted = call(secure_node, "POST", f"{secure_node.index(tenant)}/_count", TENANT_USERS[tenant], {})
    assert counted.json()["count"] == secure_node.chunks[tenant] > 0
    assert tenant_search(secure_node, tenant, secure_node.index(other), match_all_text).status_code == 403
    by_id = call(secure_node, "GET", f"{secure_node.index(other)}/_doc/any", TENANT_USERS[tenant])
    assert by_id.status_code == 403


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_a_tenant_reads_its_own_chunks_through_knn_and_nothing_else(
    secure_node: SecureNode, tenant: str, query_vector: list[float]
) -> None:
    other = next(t for t in TENANT_USERS if t != tenant)
    knn = {"knn": {"embedding": {"vector": query_vector, "k": 50}}}
    everywhere = tenant_search(secure_node, tenant, f"{secure_node.settings.index.prefix}-*", knn)
    assert everywhere.status_code == 200, everywhere.text
    hits = everywhere.json()["hits"]["hits"]
    assert len(hits) == 50
    assert {hit["_source"]["tenant_id"] for hit in hits} == {tenant}
    # The service account sees both tenants' nearest chunks for the same vector: the filter is the role.
    both = secure_node.service.search(
        index=f"{secure_node.settings.index.prefix}-*", body={"size": 100, "query": knn}
    )
    assert {hit["_source"]["tenant_id"] for hit in both["hits"]["hits"]} == set(TENANT_USERS)
    assert tenant_search(secure_node, tenant, secure_node.index(other), knn).status_code == 403


def test_a_tenant_writes_nothing(secure_node: SecureNode) -> None:
    own = secure_node.index("acme")
    user = TENANT_USERS["acme"]
    existing = tenant_search(secure_node, "acme", own, {"match_all": {}}).json()["hits"]["hits"][0]["_id"]
    attempts = [
        ("PUT", f"{own}/_doc/injected", {"text": "injected", "tenant_id": "acme"}),
        ("POST", f"{own}/_update/{existing}", {"doc": {"text": "rewritten"}}),
        ("DELETE", f"{own}/_doc/{existing}", None),
        ("PUT", f"{own}-new", {}),
        ("PUT", f"{own}/_mapping", {"properties": {"extra": {"type": "keyword"}}}),
        ("DELETE", own, None),
    ]
    assert not_refused(secure_node, user, attempts) == []
    lines = [{"index": {"_index": own, "_id": "bulk-injected"}}, {"text": "injected", "tenant_id": "acme"}]
    bulk = requests.post(
        f"{secure_node.url}/_bulk",
        data="".join(json.dumps(line) + "\n" for line in lines),
        headers={"Content-Type": "application/x-ndjson"},
        auth=(user, secure_node.password(user)),
        verify=str(secure_node.ca_file),
        timeout=30,
    )
    refused = bulk.status_code == 403 or all(
        item["index"]["status"] == 403 for item in bulk.json().get("items", [{"index": {"status": 0}}])
    )
    assert refused, bulk.text[:300]
    assert call(secure_node, "POST", f"{own}/_count", user, {}).json()["count"] == secure_node.chunks["acme"]


def test_no_tenant_reaches_pipelines_templates_settings_snapshots_or_security(
    secure_node: SecureNode,
) -> None:
    user = TENANT_USERS["globex"]
    attempts = [
        ("GET", "_search/pipeline", None),
        ("PUT", "_search/pipeline/tenant-made", {"request_processors": []}),
        ("GET", "_ingest/pipeline", None),
        ("GET", "_index_template", None),
        ("PUT", "_index_template/tenant-made", {"index_patterns": ["tenant-made-*"]}),
        ("PUT", "_cluster/settings", {"persistent": {"cluster.routing.allocation.enable": "none"}}),
        ("GET", "_snapshot", None),
        ("GET", "_plugins/_security/api/roles", None),
        ("GET", "_plugins/_security/api/internalusers", None),
        ("GET", ".opendistro_security/_search", None),
    ]
    assert not_refused(secure_node, user, attempts) == []


def test_the_service_account_manages_what_the_control_plane_owns(secure_node: SecureNode) -> None:
    service = secure_node.service
    assert service.indices.exists_index_template(name="chunks")
    index = f"{secure_node.index('acme')}-scratch"
    try:
        service.index(
            index=index,
            id="one",
            body={"text": "written by the control plane", "tenant_id": "acme"},
            refresh=True,
        )
        assert service.count(index=index)["count"] == 1
        # A tenant reads its own new index (chunks-acme-*), the other tenant does not.
        assert (
            tenant_search(secure_node, "acme", index, {"match_all": {}}).json()["hits"]["total"]["value"] == 1
        )
        assert tenant_search(secure_node, "globex", index, {"match_all": {}}).status_code == 403
    finally:
        service.indices.delete(index=index, ignore_unavailable=True)
    # ...but nothing beyond it: the security configuration belongs to the admin certificate alone.
    denied = call(secure_node, "GET", "_plugins/_security/api/internalusers", "biohybrid_control_plane")
    assert denied.status_code == 403
