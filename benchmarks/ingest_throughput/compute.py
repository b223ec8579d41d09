"""One timed ingest into a throw-away index on the configured node, and the CPU it ran on."""

from __future__ import annotations

import math
import os
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from opensearchpy import OpenSearch

from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.errors import BiohybridError
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.parsers import parse_documents, unique_documents
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder

T = TypeVar("T")


@dataclass(frozen=True)
class EncodeRun:
    """The pure encoding of the same chunks with the same models (no OpenSearch, no cache), in batches
    of the ingest's size: the rate the ingest is measured against. ``chunks`` were encoded out of
    ``of_chunks``: every ``of_chunks / chunks``-th one when a sample keeps a large set's run short."""

    chunks: int
    seconds: float
    of_chunks: int = 0

    @property
    def sampled(self) -> bool:
        return 0 < self.chunks < self.of_chunks

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
    kept_index: str | None = None

    @property
    def ratio(self) -> float:
        """End-to-end chunks/s over pure-encoding chunks/s (the target is >= 0.9)."""
        return self.summary.chunks_per_s / self.encode_only.chunks_per_s if self.encode_only.seconds else 0.0


class KeepIndexError(BiohybridError, ValueError):
    """--keep-index names an index the run cannot build from scratch."""


@dataclass(frozen=True)
class IngestPlan:
    """What to ingest and how: ``encode_sample`` chunks (0: all) time the pure encoding; ``keep_index``
    names the index to keep (a size step of the scale benchmark) instead of a throw-away one."""

    source: str
    strategy: str = "section"
    batch_size: int = 256
    limit: int | None = None
    encode_sample: int = 0
    keep_index: str | None = None


def measure_ingest(settings: Settings, plan: IngestPlan, progress: bool = True) -> IngestRun:
    """Ingest ``plan.source`` end to end into a fresh index: deleted afterwards whatever happens, or
    kept under ``plan.keep_index`` when the run completes (a failed run deletes it too)."""
    client = make_client(settings.opensearch)
    index = plan.keep_index or f"{settings.index.prefix}-bench-{uuid.uuid4().hex[:8]}"
    if plan.keep_index is not None:
        _check_keep_index(client, plan.keep_index, f"{settings.index.prefix}-")
    dense, sparse = DenseEncoder.load(settings.models.dense), SparseEncoder.load(settings.models.sparse)
    counter = HuggingFaceTokenCounter.from_file(dense.model.files.tokenizer)
    options = IngestOptions(
        index=index,
        strategy=plan.strategy,
        batch_chunks=plan.batch_size,
        limit_documents=plan.limit,
        progress=progress,
    )
    encoder = ModelChunkEncoder(dense, sparse)
    load_before = os.getloadavg()[0]
    encode_only = measure_encoding(plan, encoder, counter)
    with tempfile.TemporaryDirectory() as scratch:
        dead = DeadLetterFile(Path(scratch) / "dead-letter.jsonl")
        kept = False
        try:
            summary = ingest(client, [plan.source], options, encoder, dead, counter)
            kept = plan.keep_index is not None
        finally:
            if not kept:
                client.indices.delete(index=index, ignore_unavailable=True)
    return IngestRun(
        plan.source,
        summary,
        encode_only,
        dense.model.session.providers,
        load_before,
        os.getloadavg()[0],
        plan.keep_index,
    )


def _check_keep_index(client: OpenSearch, name: str, prefix: str) -> None:
    if not name.startswith(prefix):
        raise KeepIndexError(
            f"--keep-index {name!r} must start with {prefix!r} so the chunk template applies"
        )
    if client.indices.exists(index=name):
        raise KeepIndexError(
            f"index {name!r} exists already: the run times an ingest from scratch, so delete it first "
            f"(curl -XDELETE <opensearch>/{name}) or name another"
        )


def every_nth(items: Sequence[T], at_most: int) -> list[T]:
    """An evenly spread sample of at most ``at_most`` items (all of them when ``at_most`` is 0): every
    ceil(len / at_most)-th, from the first, so long and short documents alike are in it."""
    if at_most <= 0 or len(items) <= at_most:
        return list(items)
    step = math.ceil(len(items) / at_most)
    return list(items[::step])


def measure_encoding(
    plan: IngestPlan, encoder: ModelChunkEncoder, counter: HuggingFaceTokenCounter
) -> EncodeRun:
    """Chunk the documents the ingest will index (one form per record, the first ``limit``) and time
    only the encoder over them (or over an evenly spread sample), ``batch_size`` chunks per call as the
    ingest sends them."""
    documents = unique_documents(parse_documents(plan.source))[: plan.limit]
    chunks = [c for d in documents for c in chunk(d, plan.strategy, counter=counter)]
    timed = every_nth(chunks, plan.encode_sample)
    started = time.monotonic()
    for start in range(0, len(timed), plan.batch_size):
        encoder(timed[start : start + plan.batch_size])
    return EncodeRun(len(timed), time.monotonic() - started, len(chunks))
