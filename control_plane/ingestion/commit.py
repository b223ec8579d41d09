"""The end of an ingest or a re-encode: the chunk index searchable and committed. (The benchmarks'
throwaway copies only refresh: their timings measure the copy, and no node is killed under them.)

A refresh makes the new chunks searchable; a flush then commits them to Lucene and empties the
translog. Without the commit, a node killed after an ingest replays its translog on restart, so its
shard copies come back with re-built segments: the same documents in a different internal order, whose
tied scores then rank differently from their peers' (seen on the 3-node cluster: BM25 ties at depth 100
swapped after a SIGKILL of an unflushed index, none after a flushed one). RRF turns such a swap into a
different fused ranking, so the same question answered before and after a node's recovery would
differ. The commit also makes that restart's recovery a file check instead of a replay."""

from __future__ import annotations

from opensearchpy import OpenSearch


def commit_index(client: OpenSearch, index: str) -> None:
    """Refresh ``index`` (searches see every write) and flush it (a Lucene commit, translog emptied)."""
    client.indices.refresh(index=index)
    client.indices.flush(index=index)
