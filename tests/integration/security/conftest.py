"""The security-plugin node (make secure-up, inventory local-secure: OpenSearch 2.19.1 with the
product's plugins — job-scheduler, ml-commons, k-NN, neural-search — and opensearch-security, TLS and
users from the project's role): reused when it runs, else provisioned here and stopped at the end.

The control plane's service account does what `make run` does on the open node: registers the models in
ml-commons (behind a fresh inference service, in the tests' own model group), installs every template and
pipeline (hybrid, explain, rerank, clinical) with their ids, and ingests one demo source per tenant into
that tenant's own index (acme: PMC, globex: ClinicalTrials.gov) with the project's ingest and real
encoders (cached encodings). At the end the indices and the models go again."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from integration.node import REPO_ROOT, run_playbook
from integration.node_state import CPU_RERANK, TEST_GROUP, remove_test_models
from integration.service import running_service
from opensearchpy import OpenSearch

from control_plane.cluster.client import make_client
from control_plane.cluster.manage import apply_resources
from control_plane.config.settings import Settings, load_settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder
from control_plane.mlcommons.registry import register_models
from control_plane.resources.catalog import load_resources

CONFIG_FILE = REPO_ROOT / "control_plane" / "config" / "local-secure.yaml"
INVENTORY = "inventories/local-secure/hosts.yml"
PKI_DIR = REPO_ROOT / ".local" / "secure" / "pki"
TENANT_SOURCES = {"acme": "pmc", "globex": "ctgov"}
TENANT_USERS = {"acme": "acme_reader", "globex": "globex_reader"}
DOCUMENTS_PER_TENANT = 25


@dataclass(frozen=True)
class SecureNode:
    settings: Settings
    service: OpenSearch  # the control plane's service account
    url: str
    ca_file: Path
    chunks: dict[str, int]  # tenant -> chunks ingested into its index
    model_ids: dict[str, str]  # role (dense, sparse, rerank, clinical_*) -> ml-commons model id

    def password(self, user: str) -> str:
        return (PKI_DIR / "passwords" / user).read_text().strip()

    def index(self, tenant: str) -> str:
        return f"{self.settings.index.prefix}-{tenant}"


def call(
    node: SecureNode, method: str, path: str, user: str | None, body: Any = None, timeout_s: float = 30
) -> requests.Response:
    """An HTTPS request to the secured node as ``user`` (None: anonymous), trusting the role's CA."""
    auth = (user, node.password(user)) if user else None
    return requests.request(
        method, f"{node.url}/{path}", json=body, auth=auth, verify=str(node.ca_file), timeout=timeout_s
    )


def not_refused(node: SecureNode, user: str, attempts: list[tuple[str, str, Any]]) -> list[str]:
    """Each (method, path, body) ``user`` sent that did not answer 403, with what it answered."""
    answers = ((method, path, call(node, method, path, user, body)) for method, path, body in attempts)
    return [f"{m} {p}: {a.status_code} {a.text[:200]}" for m, p, a in answers if a.status_code != 403]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _provision(*extra: str) -> str:
    result = run_playbook("-i", INVENTORY, *extra)
    return "" if result.returncode == 0 else result.stdout[-5000:] + result.stderr[-2000:]


def _wait_until_ready(service: OpenSearch, timeout_s: float = 180.0) -> None:
    """A node started elsewhere (.ci/run brings it up in the background) may still be initialising its
    security index (401/503): wait for the service account to see yellow health."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            service.cluster.health(wait_for_status="yellow", timeout="5s", params={"request_timeout": 10})
            return
        except Exception as exc:  # not ready yet, or a real failure that the deadline reports
            if time.monotonic() > deadline:
                pytest.exit(f"the security-plugin node on 9221 did not become ready: {exc}", 2)
            time.sleep(2)


# Session scope (what "package" gave anyway: this folder is not a package); only this half's worker
# builds it (tests/conftest.py).
@pytest.fixture(scope="session")
def secure_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureNode]:
    started_here = not _listening(9221)
    if started_here and (failure := _provision()):
        pytest.exit(f"the security-plugin node did not come up:\n{failure}", 2)
    service = make_client(load_settings(CONFIG_FILE, environ={}).opensearch)
    _wait_until_ready(service)
    try:
        with running_service() as url:
            settings = secure_settings(url)
            model_ids = {m.role: m.model_id for m in register_models(service, settings)}
            apply_resources(service, settings, load_resources(settings, model_ids))
            chunks = _ingest_tenants(service, settings, tmp_path_factory)
            yield SecureNode(
                settings, service, settings.opensearch.url, PKI_DIR / "root-ca.pem", chunks, model_ids
            )
    finally:
        for tenant in TENANT_SOURCES:
            service.indices.delete(index=f"chunks-{tenant}*", ignore_unavailable=True)
        remove_test_models(service)
        if started_here:
            _provision("-e", "opensearch_state=stopped")


# The product's own integration tests run here as written (test_product_tests.py imports them): inside
# this package the node fixtures they ask for are the secured node's, seen by the control plane's
# service account, with the settings the models were registered and the resources applied with.
@pytest.fixture(scope="session")
def settings(secure_node: SecureNode) -> Settings:
    return secure_node.settings


@pytest.fixture(scope="session")
def client(secure_node: SecureNode) -> OpenSearch:
    return secure_node.service


@pytest.fixture(scope="session")
def applied(secure_node: SecureNode) -> Settings:
    return secure_node.settings


def secure_settings(service_url: str) -> Settings:
    """The secured node's settings with the tests' model group and ``service_url``, and the search
    budgets every other integration suite uses on the loaded 2-core CI machine (api/conftest.py,
    docs/conftest.py, cluster/reference.py): these tests check who sees what, not latency, and CI run 3
    of session 11 lost one leak-matrix rerank to the production 1.5 s budget while the 3-node cluster's
    rolling restart ran beside it."""
    return load_settings(
        CONFIG_FILE,
        environ={
            "BIOHYBRID__MODELS__SERVICE_URL": service_url,
            "BIOHYBRID__MODELS__GROUP": TEST_GROUP,
            "BIOHYBRID__SEARCH__COMPONENT_TIMEOUT_MS": "10000",
            "BIOHYBRID__SEARCH__RERANK_TIMEOUT_MS": "30000",
            **CPU_RERANK,  # the leak matrix's rerank calls carry each tenant's text
        },
    )


def _ingest_tenants(
    service: OpenSearch, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, int]:
    encoder, counter = python_encoder(settings)
    chunks: dict[str, int] = {}
    for tenant, source in TENANT_SOURCES.items():
        index = f"{settings.index.prefix}-{tenant}"
        service.indices.delete(index=index, ignore_unavailable=True)
        dead_letter = DeadLetterFile(tmp_path_factory.mktemp(tenant) / "dead-letter.jsonl")
        # Routed as the CLI and the control API route it: <prefix>-<tenant>, checked against the tenant.
        options = IngestOptions.for_tenant(
            settings.index, tenant, strategy="section", progress=False, limit_documents=DOCUMENTS_PER_TENANT
        )
        assert options.index == index
        summary = ingest(service, [source], options, encoder, dead_letter, counter)
        assert summary.index_failures == 0, summary
        service.indices.refresh(index=index)
        chunks[tenant] = int(service.count(index=index)["count"])
    return chunks
