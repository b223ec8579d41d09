"""Helpers of the API tests. The package fixture (conftest.py) builds the stack over the real node:
the inference service (real ONNX models, on its own port), the models registered in ml-commons, and
two tenants' chunks indexed by the project's ingest (ClinicalTrials.gov + PMC for tenant A, 40 NFCorpus
abstracts for tenant B: disjoint doc ids, so any of A's ids in B's answers is a leak)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.inference.faults import ENV_VAR as FAULT_ENV_VAR
from control_plane.inference.process import start_service, stop_service
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder

KEYS = {
    "a-search": ("tenant-a", "search"),
    "a-admin": ("tenant-a", "admin"),
    "b-search": ("tenant-b", "search"),
}


@dataclass
class ApiStack:
    settings: Settings
    app: Flask
    service_port: int
    service_state: Path
    prefix: str
    tenant_docs: dict[str, set[str]]

    def client(self) -> FlaskClient:
        return self.app.test_client()

    def stop_service(self) -> None:
        stop_service(self.service_state)

    def start_service(self) -> None:
        """The stack's service again, on its port, as the fixture started it: with the fault switch on
        (the degradation and rerank tests arm it after a test stopped and restarted the service)."""
        start_faulty_service(self.service_port, self.service_state)


def start_faulty_service(port: int, state: Path) -> str:
    """The inference service on ``port`` with its fault switch on (only armed faults ever fire); its URL."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv(FAULT_ENV_VAR, "1")
        url, _ = start_service(port, state)
    return url


def secret(name: str) -> str:
    """The test key of a named principal (distinct from its name, so logs can be searched for it)."""
    return f"key-{name}-s3cr3t"


def headers(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret(name)}"}


def ingest_for_tenant(
    client: OpenSearch,
    settings: Settings,
    sources: list[str],
    index: str,
    tenant: str,
    limit: int | None = None,
) -> set[str]:
    encoder, counter = python_encoder(settings)
    options = IngestOptions(
        index=index, tenant_id=tenant, strategy="section", progress=False, limit_documents=limit
    )
    dead = DeadLetterFile(Path(f".local/test-dead-letter-{tenant}.jsonl"))
    summary = ingest(client, sources, options, encoder, dead, counter)
    assert summary.chunks > 0 and summary.index_failures == 0
    client.indices.refresh(index=index)
    hits = client.search(
        index=index, body={"size": 0, "aggs": {"d": {"terms": {"field": "doc_id", "size": 1000}}}}
    )
    return {bucket["key"] for bucket in hits["aggregations"]["d"]["buckets"]}
