"""Reliability on a real 3-node cluster: a node SIGKILLed in the middle of a bulk ingest and of a steady
stream of searches, then started again; and a rolling restart of every node under searches.

What is measured is what a user would see: the index afterwards (exactly the reference chunk ids and
content hashes, no duplicates), every search answer during the outage (no 5xx, no error, complete or
flagged partial) and after it (the same results as before). The numbers go to
.local/cluster/fault-report.json for the closing note."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from integration.cluster.nodes import (
    CLUSTER_ROOT,
    NODES,
    kill_node,
    restart_node,
    rolling_restart,
    wait_for_green,
)
from integration.cluster.reference import (
    DEMO_KEY,
    Cluster,
    agrees_up_to_neighbour_swaps,
    api_settings,
    count_so_far,
    ingest_demo,
    ranked_ids,
    stored_chunks,
)
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.cluster.client import make_client
from control_plane.cluster.status import read_status
from control_plane.config.settings import Settings
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.commit import commit_index
from control_plane.ingestion.run import IngestSummary
from control_plane.query.components import text_search_body
from control_plane.resilience.retry import retry_search

pytestmark = pytest.mark.integration

QUERIES = (
    "exclusion criteria pregnancy",
    "serious adverse events of the study drug",
    "dose of the intervention in mg",
    "primary outcome results",
    "randomized controlled trial methods",
    "indications for treatment",
)
REPORT = CLUSTER_ROOT / "fault-report.json"
MAX_REQUESTS = 4000  # the stream's bound, whatever happens
# A steady stream, not a flood: on 2 cores a flood slows the node restarts it is meant to watch.
PAUSE_S = 0.3
# Direct answers keep two hits past the top 10, so a neighbouring swap across the cut is recognised.
DIRECT_DEPTH = 12
PATHS = ("api", "api-solo", "direct")


@dataclass(frozen=True)
class Answer:
    """One search as the client saw it."""

    path: str  # api (replicated index), api-solo (index without replicas), direct (pipeline, query_text)
    query: str
    phase: str  # before | outage | after | rolling
    error: str | None
    status: int
    partial: bool
    ids: tuple[str, ...]


class Searcher:
    """The three ways a client searches, against the replicated reference index and (API) against a
    copy without replicas, whose shard on a killed node cannot be served: answers must say so."""

    def __init__(self, cluster: Cluster, solo_index: str) -> None:
        self.index = cluster.reference_index
        evaluation = load_evaluation_settings(environ={})
        self.apps = {
            "api": create_app(api_settings(cluster.settings, self.index), evaluation=evaluation),
            "api-solo": create_app(api_settings(cluster.settings, solo_index), evaluation=evaluation),
        }
        self.direct: OpenSearch = make_client(cluster.settings.opensearch)

    def ask(self, path: str, query: str, phase: str) -> Answer:
        if path == "direct":
            return self._direct(query, phase)
        headers = {"Authorization": f"Bearer {DEMO_KEY}"}
        body_sent = {"query": query, "size": 10}
        response = self.apps[path].test_client().post("/v1/search", json=body_sent, headers=headers)
        body = response.get_json(silent=True) or {}
        if response.status_code != 200:
            return Answer(path, query, phase, str(body)[:300], response.status_code, False, ())
        ids = tuple(r["chunk_id"] for r in body["results"])
        return Answer(path, query, phase, None, 200, bool(body["metadata"]["partial"]), ids)

    def _direct(self, query: str, phase: str) -> Answer:
        """As the project's direct clients search: a transient answer (a node leaving, a shard
        recovering), and an answer short of a shard whose node left mid-search, is asked again a
        bounded number of times (control_plane/resilience/retry.py ``retry_search``)."""
        try:
            answer = retry_search(
                lambda: self.direct.search(
                    index=self.index,
                    body=text_search_body(query, DIRECT_DEPTH),
                    params={"search_pipeline": "hybrid-rrf"},
                ),
                what="direct search",
            )
        except Exception as exc:  # every failure a client would see is recorded
            return Answer("direct", query, phase, f"{type(exc).__name__}: {str(exc)[:300]}", 0, False, ())
        shards = answer["_shards"]
        partial = shards["failed"] > 0 or shards["successful"] + shards.get("skipped", 0) < shards["total"]
        return Answer("direct", query, phase, None, 200, partial, ranked_ids(answer["hits"]["hits"]))

    def round(self, phase: str, paths: tuple[str, ...] = PATHS) -> list[Answer]:
        return [self.ask(path, query, phase) for query in QUERIES for path in paths]

    def partial_counter(self, path: str) -> float:
        metrics = self.apps[path].test_client().get("/metrics").get_data(as_text=True)
        name = "biohybrid_api_partial_answers_total "
        line = next(ln for ln in metrics.splitlines() if ln.startswith(name))
        return float(line.split()[1])


@dataclass
class Stream:
    """Searches sent back to back from a thread, in whatever phase the test is in, until stopped."""

    searcher: Searcher
    paths: tuple[str, ...]
    phase: str = "before"
    answers: list[Answer] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set() and len(self.answers) < MAX_REQUESTS:
            for query in QUERIES:
                for path in self.paths:
                    self.answers.append(self.searcher.ask(path, query, self.phase))
                    self.stop.wait(PAUSE_S)

    def __enter__(self) -> Stream:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(timeout=120)


@dataclass(frozen=True)
class NodeKill:
    victim: str
    summary: IngestSummary
    fault_index: str
    stored: dict[str, str]
    stored_count: int
    before: list[Answer]
    during: list[Answer]
    after: list[Answer]
    partial_counted: float


def _holder_of_shard_zero(client: OpenSearch, index: str) -> str:
    rows = client.cat.shards(index=index, format="json")
    return next(row["node"] for row in rows if row["shard"] == "0" and row["prirep"] == "p")


@pytest.fixture(scope="module")
def node_kill(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[NodeKill]:
    client = cluster.client
    solo = session_index("cluster-solo")
    client.indices.create(index=solo, body={"settings": {"index": {"number_of_replicas": 0}}})
    client.reindex(body={"source": {"index": cluster.reference_index}, "dest": {"index": solo}})
    # Committed as an ingest leaves an index: the kill below must not make its shard replay a translog
    # into re-built segments, whose tie order would differ from the answers before (ingestion/commit.py).
    commit_index(client, solo)
    wait_for_green(client)
    searcher = Searcher(cluster, solo)
    before = searcher.round("before")
    victim = _holder_of_shard_zero(client, solo)  # the unreplicated copy loses a shard with it
    fault_index = session_index("cluster-fault")
    dead_letter = DeadLetterFile(tmp_path_factory.mktemp("fault") / "dead-letter.jsonl")
    outcome: dict[str, Any] = {}

    def run_ingest() -> None:
        try:
            outcome["summary"] = ingest_demo(
                client, cluster.settings, fault_index, dead_letter, batch_chunks=64
            )
        except Exception as exc:  # reported by the test below
            outcome["error"] = exc

    ingesting = threading.Thread(target=run_ingest, daemon=True)
    try:
        with Stream(searcher, PATHS) as stream:
            ingesting.start()
            deadline = time.monotonic() + 300
            while ingesting.is_alive() and time.monotonic() < deadline:
                if count_so_far(client, fault_index) >= 256:  # a few batches in, most still to come
                    break
                time.sleep(0.2)
            assert ingesting.is_alive(), "the ingest ended before the node could be killed: give it more work"
            stream.phase = "outage"
            kill_node(victim)
            ingesting.join(timeout=600)
            failure = restart_node(victim)
            assert not failure, failure
            wait_for_green(client)
            stream.phase = "recovered"
        assert "error" not in outcome, f"the ingest raised: {outcome.get('error')!r}"
        after = searcher.round("after")
        client.indices.refresh(index=fault_index)
        stored = stored_chunks(client, fault_index)
        result = NodeKill(
            victim,
            outcome["summary"],
            fault_index,
            stored,
            int(client.count(index=fault_index)["count"]),
            before,
            [a for a in stream.answers if a.phase == "outage"],
            after,
            searcher.partial_counter("api-solo"),
        )
        _report("node_kill", _kill_report(result, stream.answers))
        yield result
    finally:
        client.indices.delete(index=solo, ignore_unavailable=True)
        client.indices.delete(index=fault_index, ignore_unavailable=True)


@pytest.fixture(scope="module")
def single_node_run(
    client: OpenSearch, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    """The same sources ingested by the same code into the single local node (the `local` inventory)."""
    index = session_index("single-node-demo")
    ingest_demo(client, settings, index, DeadLetterFile(tmp_path_factory.mktemp("single") / "dl.jsonl"))
    client.indices.refresh(index=index)
    try:
        yield stored_chunks(client, index)
    finally:
        client.indices.delete(index=index, ignore_unavailable=True)


def test_status_shows_every_node_its_shards_and_the_manager(cluster: Cluster) -> None:
    status = read_status(cluster.client, cluster.settings, [])
    assert status.health == "green"
    assert [node.name for node in status.node_details] == list(NODES)
    assert sum(node.cluster_manager for node in status.node_details) == 1
    # Every shard copy is on some node: the reference index alone has 3 primaries and 3 replicas.
    assert sum(node.shards for node in status.node_details) == status.shards["active_shards"] >= 6
    assert status.shards["unassigned_shards"] == 0


def test_a_node_killed_mid_ingest_loses_and_duplicates_nothing(
    node_kill: NodeKill, cluster: Cluster, single_node_run: dict[str, str]
) -> None:
    summary = node_kill.summary
    assert summary.index_failures == 0, "a batch was given up: see the dead-letter file"
    # Exactly the fault-free cluster run's chunks, with the same content, and the single node's.
    assert node_kill.stored == cluster.reference
    assert node_kill.stored == single_node_run
    assert node_kill.stored_count == len(node_kill.stored) == summary.chunks  # no duplicates
    assert summary.written == summary.chunks  # every chunk acknowledged once (fresh index)


def test_searches_during_a_node_kill_are_complete_or_say_they_are_partial(node_kill: NodeKill) -> None:
    during = node_kill.during
    assert len(during) >= 3 * len(QUERIES), "too few searches landed while the node was down"
    failed = [a for a in during if a.error is not None or a.status >= 500]
    assert not failed, failed[:5]
    # The replicated index answers completely, through the API and directly.
    assert not [a for a in during if a.path in ("api", "direct") and a.partial]
    # The copy without replicas lost a shard with the node: its answers say so, and are counted.
    solo = [a for a in during if a.path == "api-solo"]
    partial = [a for a in solo if a.partial]
    assert partial, "no answer of the unreplicated index was flagged partial while its shard's node was down"
    assert node_kill.partial_counted >= len(partial)
    # An answer not flagged partial is the whole answer (never silently short).
    before = {(a.path, a.query): a.ids for a in node_kill.before}
    assert all(a.ids == before[(a.path, a.query)] for a in solo if not a.partial)


def test_after_recovery_every_search_gives_what_it_gave_before(node_kill: NodeKill) -> None:
    """Over the unreplicated index (``api-solo``), /v1/search gives the same ranking. Over the replicated
    one, directly and through /v1/search, the same top 10 up to swaps of neighbouring hits
    (``agrees_up_to_neighbour_swaps``): with document replication each shard copy indexes the chunks
    itself and orders a component's exactly tied scores by its own doc order, RRF (the default fusion)
    turns that into different ranks, and after the victim's copies moved another copy answers. Two CI
    runs (2026-11-27) saw /v1/search swap two neighbouring chunks of one trial at ranks 4-5 and 8-9."""
    before = {(a.path, a.query): a.ids for a in node_kill.before}
    assert all(a.error is None and not a.partial for a in node_kill.after)
    assert {(a.path, a.query) for a in node_kill.after} == set(before)
    for answer in node_kill.after:
        expected = before[(answer.path, answer.query)]
        if answer.path == "direct":  # asked for more than 10 hits, so a swap across the 10th place shows
            assert agrees_up_to_neighbour_swaps(expected, answer.ids), _rank_by_rank(answer, expected)
        elif answer.path == "api":  # 10 hits: the 10th may have swapped with an 11th no answer holds
            swapped = agrees_up_to_neighbour_swaps(expected, answer.ids, k=len(expected) - 1)
            assert swapped, _rank_by_rank(answer, expected)
        else:
            assert answer.ids == expected, (answer.path, answer.query)
    assert all(before.values())


def _rank_by_rank(answer: Answer, expected: tuple[str, ...]) -> str:
    """Every rank of both answers, whole (pytest cuts a tuple's repr), marking where they differ: what
    is needed to tell a tie broken by another shard copy's doc order from a result that changed."""
    rows = [f"{answer.path} {answer.query!r}: rank, before, after"]
    for rank in range(max(len(expected), len(answer.ids))):
        was = expected[rank] if rank < len(expected) else "-"
        now = answer.ids[rank] if rank < len(answer.ids) else "-"
        rows.append(f"{rank + 1:>3} {'  ' if was == now else '<>'} {was:<28} {now}")
    return "\n".join(rows)


def test_a_rolling_restart_of_every_node_fails_no_search(cluster: Cluster, node_kill: NodeKill) -> None:
    searcher = Searcher(cluster, cluster.reference_index)
    with Stream(searcher, ("api", "direct"), phase="rolling") as stream:
        failure = rolling_restart()
    assert not failure, failure
    wait_for_green(cluster.client)
    answers = stream.answers
    failed = [a for a in answers if a.error is not None or a.status != 200]
    partial = [a for a in answers if a.partial]
    counts = {"searches_sent": len(answers), "failed": len(failed), "partial": len(partial)}
    _report("rolling_restart", counts)
    assert len(answers) >= 10 * len(QUERIES)
    assert not failed, failed[:5]
    assert not partial, partial[:5]


def _kill_report(result: NodeKill, answers: list[Answer]) -> dict[str, Any]:
    summary = result.summary
    return {
        "victim": result.victim,
        "writes_acknowledged": summary.written,
        "chunks_found": len(result.stored),
        "documents_counted": result.stored_count,
        "duplicated": result.stored_count - len(result.stored),
        "retried_records": summary.retried_records,
        "retried_batches": summary.retried_batches,
        "index_failures": summary.index_failures,
        "searches": {
            phase: {
                "sent": len(group := [a for a in answers if a.phase == phase]),
                "failed": sum(a.error is not None for a in group),
                "partial": sum(a.partial for a in group),
                "partial_by_path": {p: sum(a.partial for a in group if a.path == p) for p in PATHS},
            }
            for phase in ("before", "outage", "recovered")
        },
        "partial_counter_api_solo": result.partial_counted,
    }


def _report(section: str, values: dict[str, Any]) -> None:
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    current = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    current[section] = {**values, "at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    REPORT.write_text(json.dumps(current, indent=2) + "\n")
