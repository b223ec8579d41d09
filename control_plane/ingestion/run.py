"""Ingest sources into a chunk index: parse -> chunk -> encode -> bulk, with progress and a summary.

The bulk write of a batch runs on a background thread while the next batch is parsed, chunked and
encoded (control_plane/ingestion/overlap.py): encoding is most of the CPU time, OpenSearch's indexing
the rest of the wait, and the two overlap. One batch is written while one more is prepared.

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
from typing import Any, TypeVar

from opensearchpy import ConnectionTimeout, OpenSearch

from control_plane.config.index_settings import IndexSettings
from control_plane.config.tenancy import check_tenant_index, tenant_index
from control_plane.ingestion.bulk import (
    BatchResult,
    ChunkEncoder,
    DeadLetterFile,
    Failure,
    PreparedBatch,
    prepare_batch,
    write_batch,
)
from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.commit import commit_index
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.index_models import claim_index
from control_plane.ingestion.overlap import Overlapped
from control_plane.ingestion.parsers import (
    Completeness,
    completeness,
    iter_documents,
    most_complete_forms,
    superseded,
)
from control_plane.ingestion.stages import LOAD, PREPARE, REFRESH, NoStages, StageListener, stage
from control_plane.ingestion.tokens import TokenCounter
from control_plane.progress import progress_bar
from control_plane.resilience.policy import backoff_s
from control_plane.resilience.transient import is_transient

log = logging.getLogger(__name__)


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
    # Where the time went. The producer's time: parsing + chunking (parse_s), model encoding (encode_s),
    # reading stored hashes (lookup_s) and waiting for the writer (write_wait_s); they add up to seconds.
    # index_s is the writer thread's time (bulk requests and their retries), overlapped with the others.
    parse_s: float = 0.0
    encode_s: float = 0.0
    lookup_s: float = 0.0
    write_wait_s: float = 0.0
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
    # The models the chunks are encoded with ({"dense": name, "sparse": name}): recorded on the index, and
    # an index whose chunks came from other (or unrecorded) models is refused before anything is written
    # (index_models.py). None: not checked (an index of the caller's own, e.g. a test's or a benchmark's).
    models: Mapping[str, str] | None = None
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
        if options.models is not None:
            claim_index(client, options.index, options.models, options.tenant_id)
        # The same record in several files (a trial as XML and as JSON): keep its most complete form.
        preferred = most_complete_forms(sources)
    with stage(listener, LOAD, summary.to_dict):
        _load(client, sources, preferred, options, encode, dead_letter, counter, summary, started)
    with stage(listener, REFRESH, lambda: {"chunks": summary.chunks}):
        commit_index(client, options.index)
    summary.seconds = time.monotonic() - started
    summary.parse_s = summary.seconds - summary.encode_s - summary.lookup_s - summary.write_wait_s
    log.info("ingest finished", extra=summary.to_dict())
    return summary


def _form(of: Completeness) -> dict[str, int]:
    tables, sections, words = of
    return {"tables": tables, "sections": sections, "words": words}


def duplicate_note(skipped: Document, best: Completeness | None) -> dict[str, Any]:
    """What the log says of a skipped duplicate (designed behaviour, not a fault): which form was kept
    and why. ``best``: the completeness of the record's most complete form among the sources (None when
    only one form was seen before ingest, e.g. the same file named twice)."""
    mine = completeness(skipped)
    if best is None:
        why = "the record came earlier in the sources: the first is kept"
    elif mine < best:
        why = "a more complete form of the record (more result tables, sections or words) is kept"
    else:
        why = "an equally complete form was ingested first and is kept (a re-run keeps the same one)"
    note: dict[str, Any] = {"doc_id": skipped.doc_id, "skipped_form": _form(mine), "why": why}
    if best is not None:
        note["kept_form"] = _form(best)
    return note


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
    """Parse, chunk and encode every source's records in batches, each written by the background writer
    while the next is prepared (the load stage)."""
    pending: list[Chunk] = []
    seen: set[str] = set()
    bar = progress_bar(desc=f"ingest -> {options.index}", unit="doc", disable=not options.progress)
    writer: Overlapped[Planned, Written] = Overlapped(
        lambda planned: _write_with_retries(client, options, planned), name="bulk-writer"
    )
    try:
        for item in iter_documents(sources):
            if isinstance(item, ParseError):
                summary.parse_errors += 1
                dead_letter.write(
                    {
                        "stage": "parse",
                        "path": str(item.path),
                        "location": item.location,
                        **({"line": item.line} if item.line is not None else {}),
                        "reason": item.reason,
                    }
                )
                log.warning(
                    "record skipped",
                    extra={"path": str(item.path), "location": item.location, "reason": item.reason},
                )
                continue
            if superseded(item, seen, preferred):
                # The same record from two files (e.g. a trial as XML and as JSON): one form is kept.
                summary.duplicates += 1
                log.info(
                    "duplicate record: one form kept", extra=duplicate_note(item, preferred.get(item.doc_id))
                )
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
                _flush(client, options, pending, encode, writer, dead_letter, summary)
                pending = []
                bar.set_postfix(
                    chunks=summary.chunks, rate=f"{summary.chunks / (time.monotonic() - started):.0f}/s"
                )
        if pending:
            _flush(client, options, pending, encode, writer, dead_letter, summary)
    finally:
        # Every batch handed over is written (or reported) before the run ends, even when it fails.
        try:
            for planned, written in writer.close():
                _record(planned, written, dead_letter, summary)
        finally:
            summary.write_wait_s = writer.wait_s
            bar.close()


@dataclass(frozen=True)
class Planned:
    """A batch for the writer: its chunks, and what preparing them gave (None: preparing gave up)."""

    batch: list[Chunk]
    prepared: PreparedBatch | None
    failures: list[Failure]


@dataclass(frozen=True)
class Written:
    result: BatchResult
    retried_batches: int
    seconds: float


def _flush(
    client: OpenSearch,
    options: IngestOptions,
    batch: list[Chunk],
    encode: ChunkEncoder,
    writer: Overlapped[Planned, Written],
    dead_letter: DeadLetterFile,
    summary: IngestSummary,
) -> None:
    """Prepare ``batch`` here (hash look-ups, encoding) and hand it to the writer."""
    planned = prepare_with_retries(client, options, batch, encode, summary)
    for done, written in writer.submit(planned):
        _record(done, written, dead_letter, summary)


def _record(planned: Planned, written: Written, dead_letter: DeadLetterFile, summary: IngestSummary) -> None:
    result = written.result
    summary.index_s += written.seconds
    summary.retried_batches += written.retried_batches
    summary.chunks += len(planned.batch)
    summary.written += result.written
    summary.unchanged += result.unchanged
    summary.deleted += result.deleted
    summary.retried_records += result.retried
    failures = [*planned.failures, *result.failures]
    summary.index_failures += len(failures)
    for failure in failures:
        dead_letter.write({"stage": "index", **asdict(failure)})


def prepare_with_retries(
    client: OpenSearch,
    options: IngestOptions,
    batch: list[Chunk],
    encode: ChunkEncoder,
    summary: IngestSummary,
    sleep: Callable[[float], None] = time.sleep,
) -> Planned:
    """Read the batch's stored hashes and encode what changed, trying again while no node answers (see
    :func:`_retrying`); giving up reports every chunk of the batch as failed."""

    def timed_encode(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
        encode_started = time.monotonic()
        try:
            return encode(chunks)
        finally:
            summary.encode_s += time.monotonic() - encode_started

    started, encode_before = time.monotonic(), summary.encode_s
    prepared, retries, reason = _retrying(
        lambda: prepare_batch(client, options.index, batch, timed_encode), options, len(batch), sleep
    )
    summary.retried_batches += retries
    summary.lookup_s += (time.monotonic() - started) - (summary.encode_s - encode_before)
    if prepared is None:
        return Planned(batch, None, [Failure(c.chunk_id, c.doc_id, 0, reason) for c in batch])
    return Planned(batch, prepared, [])


def _write_with_retries(
    client: OpenSearch, options: IngestOptions, planned: Planned, sleep: Callable[[float], None] = time.sleep
) -> Written:
    """The writer's step: send a prepared batch, trying the request again while no node answers."""
    started = time.monotonic()
    prepared = planned.prepared
    if prepared is None:
        return Written(BatchResult(), 0, 0.0)
    result, retries, reason = _retrying(
        lambda: write_batch(client, prepared, pipeline=options.pipeline),
        options,
        len(prepared.documents),
        sleep,
    )
    if result is None:
        by_id = {c.chunk_id: c.doc_id for c in planned.batch}
        result = BatchResult(
            unchanged=prepared.unchanged,
            failures=[
                *(Failure(d["chunk_id"], d.get("doc_id", ""), 0, reason) for d in prepared.documents),
                *(Failure(i, by_id.get(i, ""), 0, f"not deleted: {reason}") for i in prepared.to_delete),
            ],
        )
    return Written(result, retries, time.monotonic() - started)


T = TypeVar("T")


def _retrying(
    attempt: Callable[[], T], options: IngestOptions, chunks: int, sleep: Callable[[float], None]
) -> tuple[T | None, int, str]:
    """``attempt()`` again after a back-off when its request fails for a transient reason (no node
    answered, shards lost with a node, the cluster busy): both steps are idempotent (the write re-sends
    the same ids). After ``options.batch_retry_s`` it gives up: (None, retries, the reason). A request
    the cluster refuses (a 4xx, a failure of its own) is raised."""
    started = time.monotonic()
    retries = 0
    while True:
        try:
            return attempt(), retries, ""
        except Exception as exc:
            if not _worth_sending_again(exc):
                raise
            reason = f"{type(exc).__name__}: {str(exc)[:300]}"
            delay = backoff_s(retries, 0.5, cap_s=15.0)
            if time.monotonic() - started + delay > options.batch_retry_s:
                log.error("batch not indexed", extra={"chunks": chunks, "reason": reason})
                return None, retries, reason
            log.warning(
                "batch failed, retrying",
                extra={"chunks": chunks, "reason": reason, "delay_s": delay, "attempt": retries + 1},
            )
            sleep(delay)
            retries += 1


def _worth_sending_again(exc: Exception) -> bool:
    """The one transient rule (resilience/transient.py), and a timed-out request as well: a batch's
    steps are idempotent and have no caller waiting on a latency budget."""
    return isinstance(exc, ConnectionTimeout) or is_transient(exc)
