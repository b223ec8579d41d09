"""Ingest sources into a chunk index: parse -> chunk -> encode -> bulk, with progress and a summary.

Bad files and records never stop a run: parse errors and rejected chunks go to the dead-letter file
(JSON lines with the file, the place and the reason) and everything else lands. Re-running is safe:
unchanged chunks are skipped without re-encoding (see bulk.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from opensearchpy import ConnectionError as OpenSearchConnectionError
from opensearchpy import OpenSearch, TransportError
from opensearchpy.helpers import ScanError
from tqdm import tqdm

from control_plane.config.settings import IndexSettings
from control_plane.config.tenancy import check_tenant_index, tenant_index
from control_plane.ingestion.bulk import (
    RETRYABLE_STATUSES,
    BatchResult,
    ChunkEncoder,
    DeadLetterFile,
    Failure,
    index_batch,
)
from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import Completeness, completeness, iter_documents, most_complete_forms
from control_plane.ingestion.stages import LOAD, PREPARE, REFRESH, NoStages, StageListener, stage
from control_plane.ingestion.tokens import TokenCounter

log = logging.getLogger(__name__)

# A batch's request failing as a whole: no node answered (ConnectionError, a TransportError), a 5xx or
# 429 from the cluster, or a hash look-up whose shards went away with a node (ScanError).
TRANSIENT_BATCH_ERRORS = (OpenSearchConnectionError, TransportError, ScanError)


@dataclass
class IngestSummary:
    documents: int = 0
    chunks: int = 0
    written: int = 0
    unchanged: int = 0
    deleted: int = 0
    parse_errors: int = 0
    duplicates: int = 0
    index_failures: int = 0
    # What the cluster made us send again: records refused for a transient reason, and whole batches
    # whose request failed (a node killed mid-request); both idempotent (_id = chunk_id).
    retried_records: int = 0
    retried_batches: int = 0
    seconds: float = 0.0
    # Where the time went: parsing + chunking, model encoding, bulk indexing (incl. hash look-ups).
    parse_s: float = 0.0
    encode_s: float = 0.0
    index_s: float = 0.0

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, float]:
        return {**asdict(self), "chunks_per_s": round(self.chunks_per_s, 1)}


@dataclass(frozen=True)
class IngestOptions:
    index: str
    tenant_id: str = "default"
    strategy: str = "sentence"
    token_budget: int = 254
    overlap_pct: float = 20.0
    batch_chunks: int = 256
    pipeline: str | None = None
    progress: bool = True
    limit_documents: int | None = None
    # How long a batch whose request keeps failing (cluster unreachable, shards lost) is retried.
    batch_retry_s: float = 120.0
    # index.prefix when index.tenant_indices is on (``for_tenant`` sets it from settings): the index must
    # then be the tenant's (<prefix>-<tenant> or <prefix>-<tenant>-<suffix>), or the options are refused
    # with a TenantIndexError, before anything is written. None: any index.
    tenant_index_prefix: str | None = None

    def __post_init__(self) -> None:
        if self.tenant_index_prefix is not None:
            check_tenant_index(self.tenant_index_prefix, self.tenant_id, self.index)

    @classmethod
    def for_tenant(
        cls, settings: IndexSettings, tenant_id: str, index: str | None = None, **options: Any
    ) -> IngestOptions:
        """Options for an ingest by ``tenant_id`` into ``index`` (default ``<index.prefix>-<tenant>``),
        confined to the tenant's indices when ``index.tenant_indices`` is on: what the CLI and the
        control API build, so both refuse another tenant's index (TenantIndexError) the same way."""
        return cls(
            index=index or tenant_index(settings.prefix, tenant_id),
            tenant_id=tenant_id,
            tenant_index_prefix=settings.prefix if settings.tenant_indices else None,
            **options,
        )


def ingest(
    client: OpenSearch,
    sources: Iterable[str | Path],
    options: IngestOptions,
    encode: ChunkEncoder,
    dead_letter: DeadLetterFile,
    counter: TokenCounter | None = None,
    stages: StageListener | None = None,
) -> IngestSummary:
    """Run the whole pipeline over ``sources`` (dataset ids, files or folders); ``stages`` hears each
    stage (prepare, load, refresh: control_plane/ingestion/stages.py) start, complete or fail."""
    listener = stages or NoStages()
    summary = IngestSummary()
    started = time.monotonic()
    sources = list(sources)
    with stage(listener, PREPARE, lambda: {"sources": len(sources)}):
        if not client.indices.exists(index=options.index):
            client.indices.create(index=options.index)
        # The same record in several files (a trial as XML and as JSON): keep its most complete form.
        preferred = most_complete_forms(sources)
    with stage(listener, LOAD, summary.to_dict):
        _load(client, sources, preferred, options, encode, dead_letter, counter, summary, started)
    with stage(listener, REFRESH, lambda: {"chunks": summary.chunks}):
        client.indices.refresh(index=options.index)
    summary.seconds = time.monotonic() - started
    summary.parse_s = summary.seconds - summary.encode_s - summary.index_s
    log.info("ingest finished", extra=summary.to_dict())
    return summary


def _load(
    client: OpenSearch,
    sources: list[str | Path],
    preferred: Mapping[str, Completeness],
    options: IngestOptions,
    encode: ChunkEncoder,
    dead_letter: DeadLetterFile,
    counter: TokenCounter | None,
    summary: IngestSummary,
    started: float,
) -> None:
    """Parse, chunk, encode and index every source's records in batches (the load stage)."""
    pending: list[Chunk] = []
    seen: set[str] = set()
    bar = tqdm(
        desc=f"ingest -> {options.index}", unit="doc", disable=not options.progress, dynamic_ncols=True
    )
    for item in iter_documents(sources):
        if isinstance(item, ParseError):
            summary.parse_errors += 1
            dead_letter.write(
                {"stage": "parse", "path": str(item.path), "location": item.location, "reason": item.reason}
            )
            log.warning(
                "record skipped",
                extra={"path": str(item.path), "location": item.location, "reason": item.reason},
            )
            continue
        best = preferred.get(item.doc_id)
        if item.doc_id in seen or (best is not None and completeness(item) < best):
            # The same record from two files (e.g. a trial as XML and as JSON): the most complete form
            # wins, the first of equally complete ones, so a re-run keeps the same form.
            summary.duplicates += 1
            log.warning("duplicate document skipped", extra={"doc_id": item.doc_id})
            continue
        seen.add(item.doc_id)
        if options.limit_documents is not None and summary.documents >= options.limit_documents:
            break
        summary.documents += 1
        pending.extend(
            chunk(
                item,
                options.strategy,
                token_budget=options.token_budget,
                overlap_pct=options.overlap_pct,
                tenant_id=options.tenant_id,
                counter=counter,
            )
        )
        bar.update(1)
        if len(pending) >= options.batch_chunks:
            _flush(client, options, pending, encode, dead_letter, summary)
            pending = []
            bar.set_postfix(
                chunks=summary.chunks, rate=f"{summary.chunks / (time.monotonic() - started):.0f}/s"
            )
    if pending:
        _flush(client, options, pending, encode, dead_letter, summary)
    bar.close()


def _flush(
    client: OpenSearch,
    options: IngestOptions,
    batch: list[Chunk],
    encode: ChunkEncoder,
    dead_letter: DeadLetterFile,
    summary: IngestSummary,
) -> None:
    def timed_encode(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
        encode_started = time.monotonic()
        try:
            return encode(chunks)
        finally:
            summary.encode_s += time.monotonic() - encode_started

    flush_started, encode_before = time.monotonic(), summary.encode_s
    result = index_with_retries(client, options, batch, timed_encode, summary)
    summary.index_s += (time.monotonic() - flush_started) - (summary.encode_s - encode_before)
    summary.chunks += len(batch)
    summary.written += result.written
    summary.unchanged += result.unchanged
    summary.deleted += result.deleted
    summary.retried_records += result.retried
    summary.index_failures += len(result.failures)
    for failure in result.failures:
        dead_letter.write({"stage": "index", **asdict(failure)})


def index_with_retries(
    client: OpenSearch,
    options: IngestOptions,
    batch: list[Chunk],
    encode: ChunkEncoder,
    summary: IngestSummary,
    sleep: Callable[[float], None] = time.sleep,
) -> BatchResult:
    """Write a batch; when the request itself fails for a transient reason (no node answered, shards
    lost with a node), write it again after a back-off: the batch is idempotent (it re-reads the stored
    hashes first). After ``options.batch_retry_s`` the batch's chunks are reported as failed, with the
    reason, and the run goes on."""
    started = time.monotonic()
    attempt = 0
    while True:
        try:
            return index_batch(client, options.index, batch, encode, pipeline=options.pipeline)
        except TRANSIENT_BATCH_ERRORS as exc:
            if isinstance(exc, TransportError) and not _transient_status(exc):
                raise
            reason = f"{type(exc).__name__}: {str(exc)[:300]}"
            delay = min(15.0, 0.5 * 2**attempt)
            if time.monotonic() - started + delay > options.batch_retry_s:
                log.error("batch not indexed", extra={"chunks": len(batch), "reason": reason})
                return BatchResult(failures=[Failure(c.chunk_id, c.doc_id, 0, reason) for c in batch])
            summary.retried_batches += 1
            log.warning(
                "batch failed, retrying",
                extra={"chunks": len(batch), "reason": reason, "delay_s": delay, "attempt": attempt + 1},
            )
            sleep(delay)
            attempt += 1


def _transient_status(exc: TransportError) -> bool:
    status = exc.status_code
    return not isinstance(status, int) or status in RETRYABLE_STATUSES or status >= 500
