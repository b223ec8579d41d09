"""Fixtures for tests against the real local OpenSearch node.

The node is the one the Ansible `local` inventory provisions. If one is already running (same
cluster name) it is reused and left running; otherwise the playbook starts it and the session stops
it at the end, so the machine is left as it was found.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from integration.node import LOG_FILE, cluster_name_at, run_playbook
from opensearchpy import OpenSearch

from control_plane.cluster.manage import apply_resources, current_resources
from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.opensearch.client import make_client


@pytest.fixture(scope="session")
def settings() -> Settings:
    return load_settings(LOCAL_FILE, environ={})


@pytest.fixture(scope="session")
def node(settings: Settings) -> Iterator[str]:
    url = settings.opensearch.url
    running = cluster_name_at(url)
    if running is not None and running != settings.opensearch.cluster_name:
        pytest.exit(f"{url} answers as cluster '{running}', not the project's local node: stop it first", 2)
    started_here = running is None
    if started_here:
        result = run_playbook()
        if result.returncode != 0:
            tail = LOG_FILE.read_text(errors="replace")[-4000:] if LOG_FILE.exists() else "(no node log)"
            pytest.exit(f"provisioning failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}\n{tail}", 2)
    yield url
    if started_here:
        run_playbook("-e", "opensearch_state=stopped")


@pytest.fixture(scope="session")
def client(node: str, settings: Settings) -> OpenSearch:
    return make_client(settings.opensearch)


@pytest.fixture(scope="session")
def applied(client: OpenSearch, settings: Settings) -> Settings:
    """The project's templates and pipelines installed on the node (with the ids of whichever models
    are deployed, so the pipelines keep their query defaults)."""
    apply_resources(client, settings, current_resources(client, settings))
    return settings


@pytest.fixture
def chunk_index(client: OpenSearch, applied: Settings) -> Iterator[str]:
    """A fresh index matching the chunk template (prefix-*), deleted afterwards."""
    name = f"{applied.index.prefix}-test-{uuid.uuid4().hex[:8]}"
    client.indices.create(index=name)
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)
