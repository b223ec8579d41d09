"""Run the project's inference service (real ONNX models) on a free port, through the same
background-process code `biohybrid service start|stop` uses; register the models behind it."""

from __future__ import annotations

import socket
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from integration.node_state import isolated_settings, remove_test_models
from opensearchpy import OpenSearch
from prometheus_client.parser import text_string_to_metric_families

from control_plane.cluster.manage import apply_resources, current_resources
from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.inference.process import start_service, stop_service
from control_plane.mlcommons.registry import register_models
from control_plane.resources.catalog import load_resources


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_service(timeout_s: float = 120.0) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as state:
        state_dir = Path(state)
        url, _ = start_service(free_port(), state_dir=state_dir, timeout_s=timeout_s)
        try:
            yield url
        finally:
            stop_service(state_dir)


@contextmanager
def registered_models(client: OpenSearch) -> Iterator[Settings]:
    """The local settings with the models registered in ml-commons (the tests' own model group,
    node_state.py) behind a fresh inference service, and the pipelines applied with their ids. On exit
    the pipelines are applied again as the session's ``applied`` fixture has them (the developer's models'
    ids), so no later test queries a stopped service."""
    with running_service() as url:
        settings = isolated_settings(url)
        ids = {m.role: m.model_id for m in register_models(client, settings)}
        apply_resources(client, settings, load_resources(settings, ids))
        try:
            yield settings
        finally:
            reapply_session_resources(client)


def reapply_session_resources(client: OpenSearch) -> None:
    """The tests' models removed, and the project's templates and pipelines as the ``applied`` fixture
    installs them: with the ids of the models the node had (the developer's group; none on a fresh node)."""
    remove_test_models(client)
    local = load_settings(LOCAL_FILE, environ={})
    apply_resources(client, local, current_resources(client, local))


def service_counters(service_url: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Every counter the inference service exports, read once from its /metrics: family name (without
    ``_total``) -> each sample's labels and value."""
    with urllib.request.urlopen(f"{service_url}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {
        family.name: [
            (sample.labels, sample.value) for sample in family.samples if sample.name.endswith("_total")
        ]
        for family in text_string_to_metric_families(text)
        if family.type == "counter"
    }


def caller_counts(service_url: str) -> dict[str, float]:
    """The service's admitted requests by caller (``opensearch``, ``api``...) and, as ``unverified:NAME``,
    the requests that named a project caller without the caller token."""
    counters = service_counters(service_url)
    counts = {
        labels["caller"]: value for labels, value in counters.get("biohybrid_inference_caller_requests", [])
    }
    for labels, value in counters.get("biohybrid_inference_unverified_callers", []):
        counts[f"unverified:{labels['claimed']}"] = value
    return counts


def search_proves_its_caller(client: OpenSearch, service_url: str, index: str) -> None:
    """A clinical-pipeline search's model calls reach the service as ``opensearch``, token and all: none
    is counted as a forged name."""
    before = caller_counts(service_url)
    body = {"size": 3, "_source": ["chunk_id"], "query": {"match": {"text": "side effects of the treatment"}}}
    client.search(index=index, params={"search_pipeline": "clinical-minmax"}, body=body)
    after = caller_counts(service_url)
    assert after.get("opensearch", 0) >= before.get("opensearch", 0) + 3  # rewrite, encodes, route
    assert after.get("unverified:opensearch", 0) == before.get("unverified:opensearch", 0)
