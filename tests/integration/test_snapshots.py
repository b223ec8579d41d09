"""Snapshots on the real node: a chunk index snapshotted, deleted, restored answers exactly as before;
the repository is registered once under path.repo; a restore never overwrites an index unasked."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from integration.chunks import chunk, index_chunks
from opensearchpy import OpenSearch

from control_plane.cluster.snapshots import (
    SnapshotError,
    create_snapshot,
    ensure_repository,
    list_snapshots,
    restore_snapshot,
)
from control_plane.config.settings import Settings
from control_plane.query.components import bm25_clause, dense_vector_clause

pytestmark = pytest.mark.integration

TEXTS = [
    "warfarin increases bleeding risk in elderly patients",
    "vitamin d supplementation and fracture prevention",
    "statin therapy and muscle pain in trials",
    "bleeding events after aspirin and warfarin together",
]
QUERIES = ["warfarin bleeding", "statin muscle", "vitamin d fracture"]


def _answers(client: OpenSearch, index: str, dimension: int) -> list[list[tuple[str, float]]]:
    out = []
    for text in QUERIES:
        body: dict[str, Any] = {"size": 4, "query": bm25_clause(text)}
        hits = client.search(index=index, body=body)["hits"]["hits"]
        out.append([(h["_id"], h["_score"]) for h in hits])
    vector = dense_vector_clause([1.0] + [0.0] * (dimension - 1), 4)
    hits = client.search(index=index, body={"size": 4, "query": vector})["hits"]["hits"]
    out.append([(h["_id"], round(h["_score"], 6)) for h in hits])
    return out


def test_a_restored_index_answers_as_before(client: OpenSearch, chunk_index: str, applied: Settings) -> None:
    dimension = applied.index.knn.dimension
    chunks = [
        chunk(f"doc{i}", text, dimension=dimension, vector=[1.0, float(i)], sparse={"warfarin": 1.0})
        for i, text in enumerate(TEXTS)
    ]
    index_chunks(client, chunk_index, chunks)
    before = _answers(client, chunk_index, dimension)
    assert before[0][0][0] in {"doc0:chunk:0", "doc3:chunk:0"}  # the queries do find something

    location = ensure_repository(client)
    assert ensure_repository(client) == location  # registered once
    name = f"test-{uuid.uuid4().hex[:8]}"
    info = create_snapshot(client, name, [chunk_index])
    assert (info.state, info.indices, info.shards_failed) == ("SUCCESS", (chunk_index,), 0)
    assert name in [s.name for s in list_snapshots(client)]
    try:
        with pytest.raises(SnapshotError, match="--replace"):
            restore_snapshot(client, name)
        client.indices.delete(index=chunk_index)
        assert restore_snapshot(client, name) == [chunk_index]
        assert client.count(index=chunk_index)["count"] == len(TEXTS)
        assert _answers(client, chunk_index, dimension) == before
        client.index(index=chunk_index, id="extra", body={**chunks[0], "chunk_id": "extra"}, refresh=True)
        assert restore_snapshot(client, name, replace=True) == [chunk_index]
        assert client.count(index=chunk_index)["count"] == len(TEXTS)  # the snapshot's copy, not the edit
    finally:
        client.snapshot.delete(repository="biohybrid-backups", snapshot=name)
