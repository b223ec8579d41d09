"""One timed ingest into a throw-away index on the configured node, and the CPU it ran on."""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder


@dataclass(frozen=True)
class IngestRun:
    """What one ingest of ``source`` took (the summary splits the time by stage), the encoders'
    onnxruntime providers, and the 1-minute load average before and after (shared cores show there)."""

    source: str
    summary: IngestSummary
    providers: list[str]
    load_before: float
    load_after: float


def measure_ingest(
    settings: Settings, source: str, strategy: str, batch_size: int, limit: int | None
) -> IngestRun:
    """Ingest ``source`` end to end into a fresh index, deleted afterwards whatever happens."""
    client = make_client(settings.opensearch)
    dense, sparse = DenseEncoder.load(settings.models.dense), SparseEncoder.load(settings.models.sparse)
    counter = HuggingFaceTokenCounter.from_file(dense.model.files.tokenizer)
    index = f"{settings.index.prefix}-bench-{uuid.uuid4().hex[:8]}"
    options = IngestOptions(index=index, strategy=strategy, batch_chunks=batch_size, limit_documents=limit)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        dead = DeadLetterFile(Path(scratch) / "dead-letter.jsonl")
        try:
            summary = ingest(client, [source], options, ModelChunkEncoder(dense, sparse), dead, counter)
        finally:
            client.indices.delete(index=index, ignore_unavailable=True)
    return IngestRun(source, summary, dense.model.session.providers, load_before, os.getloadavg()[0])


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "unknown CPU"
    return next(
        (ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), "unknown CPU"
    )
