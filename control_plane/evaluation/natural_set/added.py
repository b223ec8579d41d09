"""The pairs the pool missed that a collection still judges: every chunk of each question's on-topic
records (``topics.json``'s records and partial records, and the records its author read as answering it),
so a topic question is judged for every record on its topic, whatever the systems found."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from control_plane.evaluation.natural_set.build import read_jsonl

REASON = "a chunk of a record on the question's topic, not in the pool"


def record_of(chunk_id: str) -> str:
    """The record a chunk id belongs to (``<doc_id>:chunk:<n>``)."""
    return chunk_id.split(":chunk:")[0]


def added_pairs(
    queries: Sequence[Mapping[str, Any]],
    topics: Mapping[str, Any],
    pool: Iterable[Mapping[str, Any]],
    corpus_chunk_ids: Iterable[str],
) -> list[dict[str, str]]:
    """(query, chunk) pairs, in query then chunk order, for every chunk of a question's on-topic records
    that the pool does not hold."""
    pooled = {(str(pair["query_id"]), str(pair["chunk_id"])) for pair in pool}
    chunks_of: dict[str, list[str]] = {}
    for chunk_id in corpus_chunk_ids:
        chunks_of.setdefault(record_of(chunk_id), []).append(chunk_id)
    rows: list[dict[str, str]] = []
    for query in queries:
        query_id = str(query["_id"])
        scope = topics.get("questions", {}).get(query_id, {})
        records = {
            *scope.get("records", ()),
            *scope.get("partial", ()),
            *query["metadata"].get("records", ()),
        }
        for chunk_id in sorted(c for record in records for c in chunks_of.get(record, ())):
            if (query_id, chunk_id) not in pooled:
                rows.append({"query_id": query_id, "chunk_id": chunk_id, "reason": REASON})
    return rows


def write_added(folder: Path, corpus: Path) -> int:
    """Write ``added.jsonl`` beside the folder's pool; the number of pairs."""
    queries = read_jsonl(folder / "queries.jsonl")
    topics = json.loads((folder / "topics.json").read_text(encoding="utf-8"))
    chunk_ids = [str(row["_id"]) for row in read_jsonl(corpus)]
    rows = added_pairs(queries, topics, read_jsonl(folder / "pool.jsonl"), chunk_ids)
    with (folder / "added.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    return len(rows)
