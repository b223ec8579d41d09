"""Re-encode a chunk index in place with the configured models, resumably.

What ``biohybrid reencode`` runs when an index's chunks came from other (or unrecorded) models
(index_models.py refuses an ingest into it). Every chunk's ``embedding`` and ``sparse_terms`` are
computed again from its stored ``text`` (the text the encoder saw at ingest) and the chunk is written
back whole, so no term of the old sparse model survives a merge. Chunks are taken in chunk-id order
and the index's ``_meta`` records the last id done after each written batch: an interrupted run
resumes after it, without encoding a chunk twice, and an ingest is refused until the run finished.
Only then does the index record the new models.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from control_plane.errors import BiohybridError
from control_plane.ingestion.bulk import PreparedBatch, write_batch
from control_plane.ingestion.commit import commit_index
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.index_models import (
    META_KEY,
    REENCODING_KEY,
    Reencoding,
    index_record,
    read_mapping,
    write_meta,
)
from control_plane.progress import progress_bar

log = logging.getLogger(__name__)


class ReencodeError(BiohybridError, RuntimeError):
    """A re-encode that cannot run, or stopped; the message says why and what to do."""


@dataclass(frozen=True)
class ReencodeSummary:
    index: str
    models: dict[str, str]
    chunks: int  # chunks the index holds
    reencoded: int  # chunks encoded by this run
    resumed_after: str  # the chunk id an interrupted run had reached ("" for a fresh start)
    seconds: float

    @property
    def nothing_to_do(self) -> bool:
        return self.reencoded == 0 and not self.resumed_after


def reencode(
    client: OpenSearch,
    index: str,
    models: Mapping[str, str],
    encoder: ModelChunkEncoder,
    *,
    dense_dimension: int | None = None,
    batch_chunks: int = 256,
    progress: bool = True,
) -> ReencodeSummary:
    """Re-encode every chunk of ``index`` not yet encoded by ``models`` (all of them, unless an earlier
    run was interrupted), then record ``models`` on the index. An index that already records ``models``
    with no re-encode pending is left as it is (idempotent). ``dense_dimension``: the dense model's, so
    an index whose vector field has another dimension is refused before anything is written."""
    if batch_chunks < 1:
        raise ValueError(f"batch_chunks must be >= 1, got {batch_chunks}")
    started = time.monotonic()
    if not client.indices.exists(index=index):
        raise ReencodeError(f"no index {index}: nothing to re-encode (check --index)")
    wanted = dict(models)
    mapping = read_mapping(client, index)
    meta = dict(mapping.get("_meta") or {})
    record = index_record(meta)
    total = int(client.count(index=index)["count"])
    if record.reencoding is None and record.models == wanted:
        return ReencodeSummary(index, wanted, total, 0, "", time.monotonic() - started)
    check_dimension(index, mapping, dense_dimension)
    # A run for other models than an interrupted one's starts over: chunks before its cursor hold those.
    pending = record.reencoding if record.reencoding and record.reencoding.to == wanted else None
    state = pending or Reencoding(wanted)
    meta = {**meta, REENCODING_KEY: state.to_meta()}
    write_meta(client, index, meta)
    log.info(
        "re-encode started" if pending is None else "re-encode resumed",
        extra={"index": index, "models": wanted, "after": state.after, "chunks": total},
    )
    reencoded = 0
    bar = progress_bar(desc=f"reencode {index}", unit="chunk", total=total, disable=not progress)
    try:
        if state.after:
            bar.update(_count_up_to(client, index, state.after))
        while True:
            hits = _next_chunks(client, index, state.after, batch_chunks)
            if not hits:
                break
            texts = [str(hit["_source"].get("text", "")) for hit in hits]
            documents = [
                {**hit["_source"], "chunk_id": hit["_id"], **outputs}
                for hit, outputs in zip(hits, encoder.vectors(texts), strict=True)
            ]
            result = write_batch(client, PreparedBatch(index, documents, [], 0), pipeline="_none")
            if result.failures:
                first = result.failures[0]
                raise ReencodeError(
                    f"re-encode of {index} stopped: {len(result.failures)} chunk(s) refused (first: "
                    f"{first.chunk_id}: {first.reason}); what was written stays, and running the same "
                    "command again resumes"
                )
            state = Reencoding(wanted, str(hits[-1]["_id"]))
            meta = {**meta, REENCODING_KEY: state.to_meta()}
            write_meta(client, index, meta)
            reencoded += len(hits)
            bar.update(len(hits))
    finally:
        bar.close()
    finished = {key: value for key, value in meta.items() if key != REENCODING_KEY}
    write_meta(client, index, {**finished, META_KEY: wanted})
    commit_index(client, index)
    summary = ReencodeSummary(
        index, wanted, total, reencoded, pending.after if pending else "", time.monotonic() - started
    )
    log.info("re-encode finished", extra={"index": index, "reencoded": reencoded, "models": wanted})
    return summary


def _next_chunks(client: OpenSearch, index: str, after: str, size: int) -> list[dict[str, Any]]:
    """The next ``size`` chunks after chunk id ``after`` (chunk-id order), whole."""
    body: dict[str, Any] = {"size": size, "sort": [{"chunk_id": "asc"}], "query": {"match_all": {}}}
    if after:
        body["search_after"] = [after]
    return list(client.search(index=index, body=body)["hits"]["hits"])


def _count_up_to(client: OpenSearch, index: str, after: str) -> int:
    query = {"query": {"range": {"chunk_id": {"lte": after}}}}
    return int(client.count(index=index, body=query)["count"])


def check_dimension(index: str, mapping: Mapping[str, Any], dense_dimension: int | None) -> None:
    """Refuse when the index's vector field (in its ``mapping``) has another dimension than the dense
    model gives: a field's dimension cannot change in place."""
    if dense_dimension is None:
        return
    field = mapping.get("properties", {}).get("embedding", {})
    dimension = field.get("dimension")
    if dimension is not None and int(dimension) != dense_dimension:
        raise ReencodeError(
            f"index {index} holds {dimension}-dimensional vectors and the dense model gives "
            f"{dense_dimension}: a vector field's dimension cannot change in place; ingest into a new "
            "index (delete this one when the new one serves)"
        )
