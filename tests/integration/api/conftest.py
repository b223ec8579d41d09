"""The package fixture: the control API over the real stack (see stack.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from integration.api.stack import KEYS, ApiStack, ingest_for_tenant, secret, start_faulty_service
from integration.names import session_index
from integration.node import demo_encoding_lock
from integration.node_state import isolated_settings
from integration.service import free_port, reapply_session_resources
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.api.auth import key_sha256
from control_plane.cluster.manage import apply_resources
from control_plane.config.api_settings import ApiKey
from control_plane.datasets.locate import dataset_folder
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.inference.process import stop_service
from control_plane.mlcommons.registry import register_models
from control_plane.resources.catalog import load_resources


# Session scope (what "package" gave anyway: this folder is not a package): the API tests share one
# stack; its teardown puts the session's pipelines back.
@pytest.fixture(scope="session")
def stack(node: str, client: OpenSearch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiStack]:
    prefix = session_index("api")
    state, port = tmp_path_factory.mktemp("inference"), free_port()
    url = start_faulty_service(port, state)
    try:
        settings = isolated_settings(
            url,
            **{
                "BIOHYBRID__SEARCH__INDEX_PATTERN": f"{prefix}-*",
                # Budgets wide enough for a loaded 2-core CI machine: degradation tests set tight ones.
                "BIOHYBRID__SEARCH__COMPONENT_TIMEOUT_MS": "10000",
                "BIOHYBRID__SEARCH__RERANK_TIMEOUT_MS": "30000",
            },
        )
        keys = tuple(
            ApiKey(sha256=key_sha256(secret(name)), tenant=tenant, role=role, name=name)  # type: ignore[arg-type]
            for name, (tenant, role) in KEYS.items()
        )
        settings = settings.model_copy(update={"api": settings.api.model_copy(update={"keys": keys})})
        ids = {m.role: m.model_id for m in register_models(client, settings)}
        apply_resources(client, settings, load_resources(settings, ids))
        with demo_encoding_lock():
            sources = [str(dataset_folder("clinicaltrials")), str(dataset_folder("pmc"))]
            demo = ingest_for_tenant(client, settings, sources, f"{prefix}-a", "tenant-a")
        docs = {
            "tenant-a": demo,
            "tenant-b": ingest_for_tenant(
                client, settings, ["nfcorpus"], f"{prefix}-b", "tenant-b", limit=40
            ),
        }
        evaluation = load_evaluation_settings(environ={})  # packaged: no schedule during tests
        yield ApiStack(
            settings, create_app(settings, client, evaluation=evaluation), port, state, prefix, docs
        )
    finally:
        client.indices.delete(index=f"{prefix}-*", ignore_unavailable=True)
        stop_service(state)
        # The pipelines as the session has them (the developer's models, untouched: node_state.py).
        reapply_session_resources(client)
