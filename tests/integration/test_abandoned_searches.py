"""A search already sent is cancelled inside OpenSearch when its caller leaves (issue 50: work stops when
the caller has gone). The search is made slow for real: a script scores each of 4,000 documents with a
900,000-step loop (about ten seconds on the project's 2-core VM). Its caller leaves half a second in; the
watch finds its task by the opaque id and cancels it, OpenSearch stops scoring, and the call ends as
CallerGoneError (the API's 499) caused by the node's cancellation, with no task of it left."""

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
    """4,000 short chunks in one shard (the chunk template's index: the control plane's service account may
    write it on the secured node, where these tests run too)."""
    name = session_index("slow")
    client.indices.create(index=name, body={"settings": {"number_of_shards": 1, "number_of_replicas": 0}})
    chunks = ({"_index": name, "_id": i, "doc_id": f"d{i}", "text": "aspirin"} for i in range(4000))
    helpers.bulk(client, chunks, refresh=True)
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def test_a_search_whose_caller_left_is_cancelled_in_opensearch(client: OpenSearch, slow_index: str) -> None:
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
    assert spent < 5.0, spent  # stopped, not run to its end (~10 s)
    tasks = client.tasks.list(params={"actions": SEARCH_ACTIONS, "detailed": "true"})
    assert search_task_ids(tasks, opaque_id) == []


def test_a_search_whose_caller_stays_runs_to_its_answer(client: OpenSearch, slow_index: str) -> None:
    searches = AbandonedSearches(client, poll_s=0.05)
    body = {**SLOW, "size": 3}
    body["query"]["script_score"]["script"]["params"] = {"n": 10}  # type: ignore[index]
    with searches.watching(lambda: False) as caller:
        answer = caller.search(client, index=slow_index, body=body, params={"request_timeout": 60})
    assert len(answer["hits"]["hits"]) == 3
