"""What a batch does when no node answers at all (a client pointed at a port nothing listens on: a real
refusal). Which bulk items are sent again is the one transient rule's (tests/unit/resilience)."""

from __future__ import annotations

import itertools
import socket

from control_plane.cluster.client import make_client
from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.encode import PipelineChunkEncoder
from control_plane.ingestion.parsers import parse_documents
from control_plane.ingestion.run import IngestOptions, IngestSummary, prepare_with_retries


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_batch_no_node_takes_is_retried_then_reported_chunk_by_chunk() -> None:
    client = make_client(OpenSearchSettings(url=f"http://127.0.0.1:{_closed_port()}", timeout_s=2))
    batch = [c for d in itertools.islice(parse_documents("nfcorpus"), 2) for c in chunk(d, "section")]
    summary = IngestSummary()
    sleeps: list[float] = []
    options = IngestOptions(index="chunks-nowhere", batch_retry_s=1.0)
    planned = prepare_with_retries(
        client, options, batch, PipelineChunkEncoder(), summary, sleep=sleeps.append
    )
    # Back-off 0.5 s, then the next wait (1 s) would pass the 1 s budget: given up after one retry.
    assert sleeps == [0.5]
    assert summary.retried_batches == 1
    assert planned.prepared is None  # nothing goes to the writer: no chunk is written
    assert [f.chunk_id for f in planned.failures] == [c.chunk_id for c in batch]
    assert all(f.reason.startswith("ConnectionError") and f.status == 0 for f in planned.failures)
