"""What the cluster tests compare with: the demo sources ingested by the project's own code, and the
stored ``{chunk_id: content_hash}`` of an index."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch, helpers

from control_plane.config.settings import Settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.setup import python_encoder

DEMO_SOURCES = ("pmc", "ctgov")
DEMO_KEY = "demo-search-key"  # control_plane/config/local-cluster.yaml holds its hash


@dataclass(frozen=True)
class Cluster:
    settings: Settings
    client: OpenSearch
    reference_index: str
    reference: dict[str, str]  # chunk_id -> content_hash of the fault-free run


def stored_chunks(client: OpenSearch, index: str) -> dict[str, str]:
    """``{chunk_id: content_hash}`` of every stored chunk, read with a scroll (fails on a partial read)."""
    query = {"query": {"match_all": {}}, "_source": ["content_hash"]}
    return {
        hit["_id"]: hit["_source"].get("content_hash", "")
        for hit in helpers.scan(client, index=index, query=query, size=1000, raise_on_error=True)
    }


def ingest_demo(
    client: OpenSearch, settings: Settings, index: str, dead_letter: DeadLetterFile, batch_chunks: int = 256
) -> IngestSummary:
    encoder, counter = python_encoder(settings)
    options = IngestOptions(index=index, strategy="section", batch_chunks=batch_chunks, progress=False)
    return ingest(client, list(DEMO_SOURCES), options, encoder, dead_letter, counter)


def api_settings(settings: Settings, index: str) -> Settings:
    """The cluster's settings for an in-process control API over ``index``, with budgets wide enough
    for a loaded 2-core machine."""
    search = settings.search.model_copy(
        update={"index_pattern": index, "component_timeout_ms": 10000, "rerank_timeout_ms": 30000}
    )
    return settings.model_copy(update={"search": search})


def count_so_far(client: OpenSearch, index: str) -> int:
    """Chunks in ``index`` now; 0 while it does not exist yet (for polling during an ingest)."""
    try:
        return int(client.count(index=index)["count"])
    except Exception:  # absent index, or a node just went away: polling goes on
        return 0


def ranked_ids(hits: list[dict[str, Any]]) -> tuple[str, ...]:
    """Hit ids by descending score, exact ties by id."""
    return tuple(hit["_id"] for hit in sorted(hits, key=lambda hit: (-float(hit["_score"]), hit["_id"])))


def agrees_up_to_neighbour_swaps(before: tuple[str, ...], after: tuple[str, ...], k: int = 10) -> bool:
    """Whether the top ``k`` of ``after`` is ``before``'s up to swaps of neighbouring hits: the hit at
    each rank i was at rank i-1, i or i+1 before (``before`` holds more than ``k`` hits, so a swap across
    the cut shows as one). For direct answers after a failover: document replication lets each shard
    copy order a component's tied scores by its own doc ids, which RRF turns into neighbouring swaps
    (CI runs saw two hits swap inside the top 10, and once across the 10th place)."""
    return (
        len(before) > k
        and len(after) >= k
        and all(after[i] in before[max(0, i - 1) : i + 2] for i in range(k))
    )


def comparable(path: str, ids: tuple[str, ...]) -> tuple[str, ...] | frozenset[str]:
    """What must be equal between two answers to the same query. Through /v1/search: the ranking (it
    breaks RRF ties by BM25). Straight to the pipelines: the hits, not their order. With document
    replication a primary and its replica index the documents themselves, so each orders a
    component's tied scores by its own doc ids; RRF turns such a tie into different fused scores, and
    two CI runs saw two neighbouring hits swap after the victim's shards moved (same ten hits)."""
    return frozenset(ids) if path == "direct" else ids
