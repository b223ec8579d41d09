"""One timed ingest into a throw-away index on the configured node, and the CPU it ran on."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.parsers import parse_documents, unique_documents
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder


@dataclass(frozen=True)
class EncodeRun:
    """The pure encoding of the same chunks with the same models (no OpenSearch, no cache), in batches
    of the ingest's size: the rate the ingest is measured against."""

    chunks: int
    seconds: float

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class IngestRun:
    """What one ingest of ``source`` took (the summary splits the time by stage), the pure encoding rate
    of its chunks measured just before, the encoders' onnxruntime providers, and the 1-minute load
    average before and after (shared cores show there)."""

    source: str
    summary: IngestSummary
    encode_only: EncodeRun
    providers: list[str]
    load_before: float
    load_after: float

    @property
    def ratio(self) -> float:
        """End-to-end chunks/s over pure-encoding chunks/s (the target is >= 0.9)."""
        return self.summary.chunks_per_s / self.encode_only.chunks_per_s if self.encode_only.seconds else 0.0


def measure_ingest(
    settings: Settings, source: str, strategy: str, batch_size: int, limit: int | None
) -> IngestRun:
    """Ingest ``source`` end to end into a fresh index, deleted afterwards whatever happens."""
    client = make_client(settings.opensearch)
    dense, sparse = DenseEncoder.load(settings.models.dense), SparseEncoder.load(settings.models.sparse)
    counter = HuggingFaceTokenCounter.from_file(dense.model.files.tokenizer)
    index = f"{settings.index.prefix}-bench-{uuid.uuid4().hex[:8]}"
    options = IngestOptions(index=index, strategy=strategy, batch_chunks=batch_size, limit_documents=limit)
    encoder = ModelChunkEncoder(dense, sparse)
    load_before = os.getloadavg()[0]
    encode_only = measure_encoding(source, strategy, batch_size, limit, encoder, counter)
    with tempfile.TemporaryDirectory() as scratch:
        dead = DeadLetterFile(Path(scratch) / "dead-letter.jsonl")
        try:
            summary = ingest(client, [source], options, encoder, dead, counter)
        finally:
            client.indices.delete(index=index, ignore_unavailable=True)
    return IngestRun(
        source, summary, encode_only, dense.model.session.providers, load_before, os.getloadavg()[0]
    )


def measure_encoding(
    source: str,
    strategy: str,
    batch_size: int,
    limit: int | None,
    encoder: ModelChunkEncoder,
    counter: HuggingFaceTokenCounter,
) -> EncodeRun:
    """Chunk the documents the ingest will index (one form per record, the first ``limit``) and time
    only the encoder over them, ``batch_size`` chunks per call as the ingest sends them."""
    documents = unique_documents(parse_documents(source))[:limit]
    chunks = [c for d in documents for c in chunk(d, strategy, counter=counter)]
    started = time.monotonic()
    for start in range(0, len(chunks), batch_size):
        encoder(chunks[start : start + batch_size])
    return EncodeRun(len(chunks), time.monotonic() - started)


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "unknown CPU"
    return next(
        (ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), "unknown CPU"
    )
