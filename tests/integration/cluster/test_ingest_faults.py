"""Ingest faults on the real cluster: the `biohybrid ingest` process SIGKILLed mid-run and run again,
and the inference service (the one ml-commons' connectors call) SIGKILLed while the ingest pipeline
encodes through it. Nothing may be lost, duplicated or dropped without a reason."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from integration.cluster.nodes import CLUSTER_ROOT, CONFIG_FILE, kill_by_pid_file
from integration.cluster.reference import DEMO_SOURCES, Cluster, count_so_far, stored_chunks
from integration.names import session_index

from control_plane.inference.process import start_service
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.encode import PipelineChunkEncoder
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.setup import python_encoder

pytestmark = pytest.mark.integration

INFERENCE_STATE = CLUSTER_ROOT / "inference"  # the local-cluster inventory's model_server_state_dir
INFERENCE_PORT = 8502


@pytest.fixture
def index(cluster: Cluster) -> Iterator[str]:
    name = session_index("cluster-ingest-fault")
    yield name
    cluster.client.indices.delete(index=name, ignore_unavailable=True)


def _ingest_command(index: str, dead_letter: Path) -> list[str]:
    biohybrid = str(Path(sys.executable).with_name("biohybrid"))
    return [
        biohybrid,
        "ingest",
        *DEMO_SOURCES,
        "--index",
        index,
        "--strategy",
        "section",
        "--batch-size",
        "64",
        "--no-progress",
        "--dead-letter",
        str(dead_letter),
    ]


def test_an_ingest_killed_mid_run_and_run_again_loses_and_duplicates_nothing(
    cluster: Cluster, index: str, tmp_path: Path
) -> None:
    env = {**os.environ, "BIOHYBRID_CONFIG": str(CONFIG_FILE)}
    command = _ingest_command(index, tmp_path / "dead-letter.jsonl")
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while count_so_far(cluster.client, index) < 256 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert first.poll() is None, "the ingest ended before it could be killed: give it more work"
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    landed = count_so_far(cluster.client, index)
    assert 0 < landed < len(cluster.reference)

    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    # The re-run skipped what the killed run had written (the index is the checkpoint).
    summary = next(line for line in again.stdout.splitlines() if " chunks (" in line)
    unchanged = int(summary.split(" written, ")[1].split(" unchanged")[0])
    assert unchanged >= landed, summary
    cluster.client.indices.refresh(index=index)
    assert stored_chunks(cluster.client, index) == cluster.reference
    assert int(cluster.client.count(index=index)["count"]) == len(cluster.reference)


def _doc_of(chunk_id: str) -> str:
    return chunk_id.rsplit(":chunk:", 1)[0]


def test_an_inference_service_killed_mid_ingest_dead_letters_with_the_reason_and_a_rerun_completes(
    cluster: Cluster, index: str, tmp_path: Path
) -> None:
    _, counter = python_encoder(cluster.settings)  # the reference's token counter: the same chunks
    dead_path = tmp_path / "dead-letter.jsonl"
    documents = 12
    options = IngestOptions(
        index=index,
        strategy="section",
        batch_chunks=16,
        progress=False,
        pipeline="chunk-embed",
        limit_documents=documents,
    )
    sources = ["ctgov"]

    def run(chosen: IngestOptions, dead_letter: Path) -> IngestSummary:
        return ingest(
            cluster.client, sources, chosen, PipelineChunkEncoder(), DeadLetterFile(dead_letter), counter
        )

    # The first document encodes through ml-commons; then the service dies under the rest.
    assert run(replace(options, limit_documents=1), tmp_path / "first.jsonl").index_failures == 0
    kill_by_pid_file(INFERENCE_STATE / "service.pid")
    try:
        outage = run(options, dead_path)
    finally:
        start_service(INFERENCE_PORT, INFERENCE_STATE)
    cluster.client.indices.refresh(index=index)
    landed = set(stored_chunks(cluster.client, index))
    dead = [json.loads(line) for line in dead_path.read_text().splitlines()]
    assert dead, "no chunk failed although the service that encodes them was down"
    assert outage.index_failures == len(dead)
    assert all(d["stage"] == "index" and d["reason"] for d in dead)

    rerun = run(options, tmp_path / "rerun.jsonl")
    assert rerun.index_failures == 0
    cluster.client.indices.refresh(index=index)
    final = set(stored_chunks(cluster.client, index))
    docs = {_doc_of(chunk_id) for chunk_id in final}
    expected = {chunk_id for chunk_id in cluster.reference if _doc_of(chunk_id) in docs}
    assert len(docs) == documents
    assert final == expected
    # During the outage every chunk either landed or was dead-lettered with its reason: none vanished.
    dead_ids = {d["chunk_id"] for d in dead}
    assert landed | dead_ids == expected
    assert not landed & dead_ids
