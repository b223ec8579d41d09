"""Idempotent, resumable bulk indexing of chunks.

The index itself is the checkpoint: every chunk is stored under ``_id = chunk_id`` with its
``content_hash``, so a re-run (or a restart after a crash) re-reads the hashes of the documents in a
batch, writes only new or changed chunks, skips unchanged ones without re-encoding them, and deletes
chunks of a document that shrank. Records OpenSearch rejects go to a dead-letter file with the reason,
and the rest of the batch still lands.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from opensearchpy import OpenSearch, helpers

from control_plane.ingestion.chunking import Chunk
from control_plane.resilience.policy import backoff_s
from control_plane.resilience.transient import is_transient_item, item_status

log = logging.getLogger(__name__)


class ChunkEncoder(Protocol):
    """Adds model outputs (``sparse_terms``, ``embedding``) to documents about to be written."""

    def __call__(self, chunks: Sequence[Chunk]) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class IndexPlan:
    """What a batch needs: chunks to (re)write, chunk ids left alone, chunk ids to delete."""

    to_write: list[Chunk]
    unchanged: list[str]
    to_delete: list[str]


@dataclass(frozen=True)
class Failure:
    chunk_id: str
    doc_id: str
    status: int
    reason: str


@dataclass
class BatchResult:
    written: int = 0
    unchanged: int = 0
    deleted: int = 0
    # Records sent again after a transient refusal (back-pressure, a node lost mid-request).
    retried: int = 0
    failures: list[Failure] = field(default_factory=list)


def plan_changes(existing: Mapping[str, Mapping[str, str]], chunks: Sequence[Chunk]) -> IndexPlan:
    """Compare a batch with the stored ``{doc_id: {chunk_id: content_hash}}`` of the same documents."""
    wanted = {c.chunk_id for c in chunks}
    stored = {chunk_id: h for per_doc in existing.values() for chunk_id, h in per_doc.items()}
    to_write = [c for c in chunks if stored.get(c.chunk_id) != c.content_hash]
    unchanged = [c.chunk_id for c in chunks if stored.get(c.chunk_id) == c.content_hash]
    doc_ids = {c.doc_id for c in chunks}
    to_delete = sorted(
        chunk_id for doc_id in doc_ids for chunk_id in existing.get(doc_id, {}) if chunk_id not in wanted
    )
    return IndexPlan(to_write, unchanged, to_delete)


def stored_hashes(client: OpenSearch, index: str, doc_ids: Iterable[str]) -> dict[str, dict[str, str]]:
    """``{doc_id: {chunk_id: content_hash}}`` for the given documents (absent index: empty)."""
    ids = sorted(set(doc_ids))
    if not ids or not client.indices.exists(index=index):
        return {}
    found: dict[str, dict[str, str]] = {}
    query = {"query": {"terms": {"doc_id": ids}}, "_source": ["doc_id", "content_hash"]}
    for hit in helpers.scan(client, index=index, query=query, size=1000):
        source = hit["_source"]
        found.setdefault(source["doc_id"], {})[hit["_id"]] = source.get("content_hash", "")
    return found


@dataclass(frozen=True)
class PreparedBatch:
    """A batch ready to send: its encoded documents, the chunk ids to delete, and how many chunks were
    found unchanged (not encoded, not sent). Built by :func:`prepare_batch`, sent by :func:`write_batch`,
    so the next batch can be encoded while this one is written."""

    index: str
    documents: list[dict[str, Any]]
    to_delete: list[str]
    unchanged: int


def prepare_batch(
    client: OpenSearch, index: str, chunks: Sequence[Chunk], encode: ChunkEncoder
) -> PreparedBatch:
    """Read the stored hashes of the batch's documents and encode only what is new or changed."""
    plan = plan_changes(stored_hashes(client, index, (c.doc_id for c in chunks)), chunks)
    documents = encode(plan.to_write) if plan.to_write else []
    return PreparedBatch(index, documents, plan.to_delete, len(plan.unchanged))


def write_batch(
    client: OpenSearch,
    prepared: PreparedBatch,
    *,
    max_retries: int = 8,
    pipeline: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> BatchResult:
    """Send a prepared batch; records refused for a transient reason are sent again (back-off), the
    others are returned as failures with the reason, never raised."""
    index, documents = prepared.index, prepared.documents
    result = BatchResult(unchanged=prepared.unchanged)
    actions: list[dict[str, Any]] = [
        {"_op_type": "index", "_index": index, "_id": doc["chunk_id"], "_source": doc} for doc in documents
    ]
    actions += [{"_op_type": "delete", "_index": index, "_id": chunk_id} for chunk_id in prepared.to_delete]
    # wait_for: the next batch (or a restart) must see these hashes, and searches need a refresh.
    extra: dict[str, Any] = {"refresh": "wait_for", **({"pipeline": pipeline} if pipeline else {})}
    pending = actions
    for attempt in range(max_retries + 1):
        retry: list[dict[str, Any]] = []
        for ok, item in helpers.streaming_bulk(
            client,
            pending,
            raise_on_error=False,
            raise_on_exception=False,
            max_retries=0,
            chunk_size=500,
            **extra,
        ):
            op, outcome = next(iter(item.items()))
            if ok:
                result.written += op == "index"
                result.deleted += op == "delete"
                continue
            if is_transient_item(outcome) and attempt < max_retries:
                retry.append(_action_for(outcome["_id"], op, actions))
            elif not (op == "delete" and item_status(outcome) == 404):
                result.failures.append(_failure(outcome, documents))
        if not retry:
            break
        result.retried += len(retry)
        delay = backoff_s(attempt, 0.5, cap_s=30.0)
        log.warning(
            "bulk back-pressure", extra={"retrying": len(retry), "delay_s": delay, "attempt": attempt + 1}
        )
        sleep(delay)
        pending = retry
    return result


def index_batch(
    client: OpenSearch,
    index: str,
    chunks: Sequence[Chunk],
    encode: ChunkEncoder,
    *,
    max_retries: int = 8,
    pipeline: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> BatchResult:
    """Write one batch idempotently (prepare, then write); per-record failures are returned, not raised.
    ``pipeline`` names an ingest pipeline that encodes the documents inside OpenSearch."""
    prepared = prepare_batch(client, index, chunks, encode)
    return write_batch(client, prepared, max_retries=max_retries, pipeline=pipeline, sleep=sleep)


def _action_for(doc_id: str, op: str, actions: list[dict[str, Any]]) -> dict[str, Any]:
    return next(a for a in actions if a["_id"] == doc_id and a["_op_type"] == op)


def _failure(outcome: Mapping[str, Any], documents: list[dict[str, Any]]) -> Failure:
    error = outcome.get("error", {})
    reason = (
        f"{error.get('type', 'error')}: {error.get('reason', error)}"
        if isinstance(error, dict)
        else str(error)
    )
    doc_id = next((d["doc_id"] for d in documents if d["chunk_id"] == outcome.get("_id")), "")
    return Failure(str(outcome.get("_id", "")), doc_id, item_status(outcome), reason)


class DeadLetterFile:
    """Append-only JSON lines of what could not be indexed or parsed, with the reason and the place."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0

    def write(self, record: Mapping[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(dict(record), default=str) + "\n")
        self.count += 1
