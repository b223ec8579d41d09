"""The local 3-node cluster (make cluster-up) for the reliability tests: reused when it runs, else
provisioned here and stopped at the end. Its control plane: the project's templates, pipelines and
models applied to it, its own inference service (port 8502), the demo sources (PMC + ClinicalTrials.gov)
ingested once without faults as the reference every fault run is compared with."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from integration.cluster.nodes import CONFIG_FILE, provision, wait_for_green
from integration.cluster.reference import Cluster, ingest_demo, stored_chunks
from integration.names import session_index
from integration.node import cluster_name_at, demo_encoding_lock

from control_plane.cluster.client import make_client
from control_plane.cluster.manage import apply_resources
from control_plane.config.settings import load_settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.mlcommons.registry import register_models
from control_plane.resources.catalog import load_resources


# Session scope (what "package" gave anyway: this folder is not a package).
@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    settings = load_settings(CONFIG_FILE, environ={})
    url = settings.opensearch.url
    running = cluster_name_at(url)
    if running is not None and running != settings.opensearch.cluster_name:
        pytest.exit(f"{url} answers as cluster '{running}', not the project's local cluster: stop it", 2)
    started_here = running is None
    if started_here and (failure := provision()):
        pytest.exit(f"the local cluster did not come up:\n{failure}", 2)
    client = make_client(settings.opensearch)
    wait_for_green(client)
    ids = {m.role: m.model_id for m in register_models(client, settings)}
    apply_resources(client, settings, load_resources(settings, ids))
    reference_index = session_index("cluster-reference")
    dead_letter = DeadLetterFile(tmp_path_factory.mktemp("reference") / "dead-letter.jsonl")
    with demo_encoding_lock():
        summary = ingest_demo(client, settings, reference_index, dead_letter)
    assert summary.index_failures == 0
    client.indices.refresh(index=reference_index)
    try:
        yield Cluster(settings, client, reference_index, stored_chunks(client, reference_index))
    finally:
        client.indices.delete(index=f"{reference_index}*", ignore_unavailable=True)
        if started_here:
            provision("-e", "opensearch_state=stopped")
