"""Chunk documents for integration tests: the template's fields with precomputed vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
from opensearchpy import OpenSearch, helpers


def unit_vector(values: list[float], dimension: int) -> list[float]:
    """Pad ``values`` with zeros to ``dimension`` and scale to length 1 (inner product == cosine)."""
    vector = np.zeros(dimension, dtype=np.float64)
    vector[: len(values)] = values
    return (vector / np.linalg.norm(vector)).tolist()


def chunk(
    doc_id: str,
    text: str,
    *,
    dimension: int,
    vector: list[float],
    sparse: dict[str, float],
    title_path: str = "",
    **fields: Any,
) -> dict[str, Any]:
    return {
        "chunk_id": f"{doc_id}:chunk:0",
        "doc_id": doc_id,
        "tenant_id": "test",
        "source": "test",
        "doc_type": "test",
        "section": "body",
        "is_table": False,
        "start": 0,
        "end": len(text),
        "text": text,
        "title_path": title_path,
        "sparse_terms": sparse,
        "embedding": vector if len(vector) == dimension else unit_vector(vector, dimension),
        **fields,
    }


def index_chunks(client: OpenSearch, index: str, chunks: list[dict[str, Any]]) -> None:
    actions = [{"_index": index, "_id": c["chunk_id"], "_source": c} for c in chunks]
    indexed, errors = helpers.bulk(client, actions, refresh="wait_for", raise_on_error=False)
    assert not errors, errors
    assert indexed == len(chunks)


def ids(response: dict[str, Any]) -> list[str]:
    return [hit["_source"]["doc_id"] for hit in response["hits"]["hits"]]


def refreshed_count(client: OpenSearch, index: str) -> int:
    """Documents in ``index`` once what was written is searchable."""
    client.indices.refresh(index=index)
    return int(client.count(index=index)["count"])


def uncommitted_operations(client: OpenSearch, index: str) -> int:
    """Operations in ``index``'s translogs not yet in a Lucene commit, over every shard copy (0 after
    a flush): what a node killed now would replay on restart."""
    stats = client.indices.stats(index=index, metric="translog", level="shards")
    return sum(
        int(copy["translog"]["uncommitted_operations"])
        for copies in stats["indices"][index]["shards"].values()
        for copy in copies
    )
