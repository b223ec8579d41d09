"""A search already sent is cancelled inside OpenSearch when its caller leaves (issue 50: work stops when
the caller has gone). The search is made slow for real: a script scores each of 8,000 documents with a
900,000-step loop. Its caller leaves half a second in; the watch finds its task by the opaque id and
cancels it, OpenSearch stops scoring, and the call ends as CallerGoneError (the API's 499) caused by the
node's cancellation, with no task of it left.

A shard search notices its cancellation between segments (and between windows of a few thousand
documents), so the documents are written as 32 segments of 250 that are never merged: one segment's
scoring is the node's cancellation latency, measured first on the same index, and "stopped" is a few of
those, against 32 for a search run to its end, on whatever CPU the test runs (one segment: about 0.6 s on
the 2-core VM of 2026-11, 2.7 s on the 2-core AVX2 EPYC of 2026-12; with 8 merged segments of 500, the
EPYC's cancellation once took 6.3 s against a fixed 5 s bound)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from integration.names import session_index
from opensearchpy import OpenSearch, helpers

from control_plane.errors import CallerGoneError
from control_plane.search.abandoned import SEARCH_ACTIONS, AbandonedSearches, search_task_ids

pytestmark = pytest.mark.integration

SEGMENTS = 32
PER_SEGMENT = 250
STOPPED_WITHIN_SEGMENTS = 6
"""A cancelled search ends within this many segments' scoring (after the half second its caller stays),
far from the 32 of one run to its end."""
SLOW = {
    "query": {
        "script_score": {
            "query": {"match_all": {}},
            "script": {
                "source": "double s = 0; for (int i = 0; i < params.n; ++i) { s += Math.sqrt(i); } return s;",
                "params": {"n": 900_000},
            },
        }
    }
}


@pytest.fixture(scope="module")
def slow_index(client: OpenSearch) -> Iterator[str]:
    """32 segments of 250 short chunks in one shard, never merged (the chunk template's index: the control
    plane's service account may write it on the secured node, where these tests run too)."""
    name = session_index("slow")
    unmerged = {
        "index.merge.policy.segments_per_tier": 4 * SEGMENTS,
        "index.merge.policy.max_merge_at_once": 4 * SEGMENTS,
    }
    # No scheduled refresh: one landing mid-bulk on a loaded machine cut a segment in two (33 segments in
    # the 2026-12-02 CI run); each bulk's own refresh=True makes its segment.
    settings = {"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "-1", **unmerged}
    client.indices.create(index=name, body={"settings": settings})
    for segment in range(SEGMENTS):
        ids = range(segment * PER_SEGMENT, (segment + 1) * PER_SEGMENT)
        chunks = ({"_index": name, "_id": i, "doc_id": f"s{segment}-d{i}", "text": "aspirin"} for i in ids)
        helpers.bulk(client, chunks, refresh=True, chunk_size=PER_SEGMENT)
    segments = client.indices.segments(index=name)["indices"][name]["shards"]["0"][0]["segments"]
    assert len(segments) == SEGMENTS, len(segments)
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def _one_segments_scoring_s(client: OpenSearch, index: str) -> float:
    """The time the slow script takes over one segment's documents (their doc_id prefix)."""
    body = {
        "query": {"script_score": {**SLOW["query"]["script_score"], "query": {"prefix": {"doc_id": "s0-"}}}}
    }
    started = time.monotonic()
    answer = client.search(index=index, body=body, params={"request_timeout": 120})
    assert answer["hits"]["total"]["value"] == PER_SEGMENT
    return time.monotonic() - started


def test_a_search_whose_caller_left_is_cancelled_in_opensearch(client: OpenSearch, slow_index: str) -> None:
    segment_s = _one_segments_scoring_s(client, slow_index)
    searches = AbandonedSearches(client, poll_s=0.05)
    left = threading.Event()
    leaving = threading.Timer(0.5, left.set)
    with searches.watching(left.is_set) as caller:
        opaque_id = caller.headers["X-Opaque-Id"]
        leaving.start()
        started = time.monotonic()
        with pytest.raises(CallerGoneError, match="during the search") as stopped:
            caller.search(client, index=slow_index, body=SLOW, params={"request_timeout": 120})
        spent = time.monotonic() - started
    assert "cancelled task" in str(stopped.value.__context__)  # the node's own cancellation
    assert spent < 0.5 + STOPPED_WITHIN_SEGMENTS * segment_s, (
        spent,
        segment_s,
    )  # stopped, not run to its end
    tasks = client.tasks.list(params={"actions": SEARCH_ACTIONS, "detailed": "true"})
    assert search_task_ids(tasks, opaque_id) == []


def test_a_search_whose_caller_stays_runs_to_its_answer(client: OpenSearch, slow_index: str) -> None:
    searches = AbandonedSearches(client, poll_s=0.05)
    body = {**SLOW, "size": 3}
    body["query"]["script_score"]["script"]["params"] = {"n": 10}  # type: ignore[index]
    with searches.watching(lambda: False) as caller:
        answer = caller.search(client, index=slow_index, body=body, params={"request_timeout": 60})
    assert len(answer["hits"]["hits"]) == 3
