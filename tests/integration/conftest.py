"""Fixtures for tests against the real local OpenSearch node.

The node is the one the Ansible `local` inventory provisions. If one is already running (same
cluster name) it is reused and left running; otherwise the playbook starts it and the session stops
it at the end, so the machine is left as it was found.
"""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from integration.names import session_index, sweep_leftovers
from integration.node import (
    LOG_FILE,
    NODE_USERS,
    STARTED_BY_A_WORKER,
    cluster_name_at,
    node_lock,
    run_playbook,
)
from integration.node_state import read_state, restore_state
from opensearchpy import OpenSearch

from control_plane.cluster.client import make_client
from control_plane.cluster.manage import apply_resources, current_resources
from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.setup import python_encoder
from control_plane.testsets.slices import BuiltSlice, SliceSpec, build_slice


@pytest.fixture(scope="session")
def settings() -> Settings:
    return load_settings(LOCAL_FILE, environ={})


def _provision_or_exit() -> None:
    result = run_playbook()
    if result.returncode != 0:
        tail = LOG_FILE.read_text(errors="replace")[-4000:] if LOG_FILE.exists() else "(no node log)"
        pytest.exit(f"provisioning failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}\n{tail}", 2)


@pytest.fixture(scope="session")
def node(settings: Settings, worker_id: str) -> Iterator[str]:
    """The local node's URL. Two xdist workers share it: the first provisions it (under a lock, so the
    other waits and reuses it), and a node a worker started is stopped by the controller at the very
    end (tests/conftest.py), when neither worker needs it any more."""
    url = settings.opensearch.url
    with node_lock():
        running = cluster_name_at(url)
        if running is not None and running != settings.opensearch.cluster_name:
            pytest.exit(f"{url} answers as cluster '{running}', not the project's local node: stop it", 2)
        started_here = running is None
        if started_here:
            _provision_or_exit()
            if worker_id != "master":
                # the xdist controller (this worker's parent) stops it; no other session does
                STARTED_BY_A_WORKER.write_text(str(os.getppid()), encoding="utf-8")
    yield url
    if started_here and worker_id == "master":
        run_playbook("-e", "opensearch_state=stopped")


@pytest.fixture(scope="session")
def client(node: str, settings: Settings, worker_id: str, testrun_uid: str) -> Iterator[OpenSearch]:
    """The node's client, after deleting what killed test sessions left behind (names.py). The node's
    models, pipelines, templates and jobs are recorded first and put back at the end (node_state.py), so
    a developer's node is left as the session found it, by the last of the run's workers to end."""
    client = make_client(settings.opensearch)
    swept = sweep_leftovers(client)
    if swept:
        print(f"\nswept {len(swept)} indices left by killed test sessions: {', '.join(sorted(swept))}")
    users = NODE_USERS / testrun_uid
    found_file = users / "found.pickle"
    with node_lock():
        users.mkdir(parents=True, exist_ok=True)
        if not found_file.exists():  # the first worker of the run to use the node records it
            found_file.write_bytes(pickle.dumps(read_state(client)))
        (users / f"worker-{worker_id}").touch()
    yield client
    # The last worker puts it back: a worker that ended first would otherwise delete what the other half's
    # live fixtures registered (CI run of 2026-11-27: the cluster half ended first, and the docs examples'
    # pipelines lost their models mid-run).
    with node_lock():
        (users / f"worker-{worker_id}").unlink(missing_ok=True)
        last = not any(users.glob("worker-*"))
        found = pickle.loads(found_file.read_bytes()) if last else None
        if last:
            shutil.rmtree(users, ignore_errors=True)
    if found is not None:
        restore_state(client, found)


@pytest.fixture(scope="session")
def applied(client: OpenSearch, settings: Settings) -> Settings:
    """The project's templates and pipelines installed on the node (with the ids of whichever models
    are registered, so the pipelines keep their query defaults)."""
    apply_resources(client, settings, current_resources(client, settings))
    return settings


@pytest.fixture
def chunk_index(client: OpenSearch, applied: Settings) -> Iterator[str]:
    """A fresh index matching the chunk template (prefix-*), deleted afterwards."""
    name = session_index("test", applied.index.prefix)
    client.indices.create(index=name)
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


# Fixed slices of the BEIR sets that every quality check of a session shares (built by a documented,
# seeded function: control_plane/evaluation/slices.py). Sized so a session encodes about 2,000 chunks
# for them (1,513 NFCorpus; SciFact's 50 train queries and 200 distractors, 251 documents, were 100
# and 400 until CI time asked for less); the encoding cache makes a warm machine encode none.
BEIR_SLICES = {
    "nfcorpus": SliceSpec("nfcorpus-slice", (("nfcorpus/dev", 40), ("nfcorpus/test", 40)), distractors=250),
    "scifact": SliceSpec("scifact-slice", (("scifact/train", 50),), distractors=200),
}
SLICES_DIR = Path(__file__).resolve().parents[2] / ".local" / "slices"


@dataclass(frozen=True)
class SliceIndex:
    built: BuiltSlice
    index: str
    summary: IngestSummary


@pytest.fixture(scope="session")
def beir_slices(client: OpenSearch, applied: Settings) -> Iterator[dict[str, SliceIndex]]:
    """Each BEIR slice indexed by the project's ingest (Python encoding path) into an index of this
    session; deleted at the end."""
    encoder, counter = python_encoder(applied)
    indexed: dict[str, SliceIndex] = {}
    try:
        for dataset, spec in BEIR_SLICES.items():
            built = build_slice(spec, SLICES_DIR)
            index = session_index(spec.name)
            dead = DeadLetterFile(SLICES_DIR / f"{spec.name}.dead-letter.jsonl")
            options = IngestOptions(index=index, progress=False)
            summary = ingest(client, [built.folder / "corpus.jsonl"], options, encoder, dead, counter)
            client.indices.refresh(index=index)
            indexed[dataset] = SliceIndex(built, index, summary)
        yield indexed
    finally:
        for item in indexed.values():
            client.indices.delete(index=item.index, ignore_unavailable=True)
