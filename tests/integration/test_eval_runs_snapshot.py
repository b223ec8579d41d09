"""The eval-runs store through a snapshot on the real node: runs stored by the evaluation store,
snapshotted, changed (a later run) and deleted, restored, and read back by the same store as they were,
baselines included."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.cluster.snapshots import DEFAULT_REPOSITORY, create_snapshot, restore_snapshot
from control_plane.config.settings import Settings
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.runner import ConfigurationResult, SuiteResult
from control_plane.evaluation.store import EvalRunStore, RunContext

pytestmark = pytest.mark.integration

DATASET = "nfcorpus/dev[:3]"
CONTEXT = RunContext("chunks-demo", "default", {"dense": "bge-small-bio"}, {}, "test-host", "pytest")


def _suite(run_id: str, ndcg: float) -> SuiteResult:
    def result(name: str, components: tuple[str, ...], value: float) -> ConfigurationResult:
        return ConfigurationResult(
            configuration=EvalConfiguration(name=name, components=components),
            run={},
            per_query={},
            metrics={"ndcg@10": value},
            by_query_type={},
            component_share={c: 1.0 for c in components},
            exclusive_share={c: 0.0 for c in components},
            latency_ms={"mean": 10.0, "p50": 9.0, "p95": 20.0},
            degraded_queries={},
        )

    started = datetime(2025, 1, 1, tzinfo=UTC) if run_id.endswith("1") else datetime(2025, 2, 1, tzinfo=UTC)
    return SuiteResult(
        run_id=run_id,
        test_set_id=DATASET,
        dataset="nfcorpus",
        metrics=("ndcg@10",),
        query_count=3,
        query_type_counts={"exact_term": 3},
        baseline="bm25",
        results=(
            result("bm25", ("bm25",), ndcg),
            result("hybrid-rrf", ("bm25", "splade", "dense"), ndcg + 0.1),
        ),
        started_at=started,
        finished_at=started,
    )


@pytest.fixture
def store(client: OpenSearch, applied: Settings) -> Iterator[EvalRunStore]:
    store = EvalRunStore(client, applied, session_index("snapshot", prefix="eval-runs"))
    yield store
    client.indices.delete(index=store.index, ignore_unavailable=True)


def test_stored_runs_read_back_from_a_restored_snapshot(client: OpenSearch, store: EvalRunStore) -> None:
    first = store.save(_suite("run-1", 0.3), CONTEXT)
    assert [r.is_baseline for r in first] == [True, True]
    name = f"test-eval-runs-{uuid.uuid4().hex[:8]}"
    info = create_snapshot(client, name, [store.index])
    assert (info.state, info.indices) == ("SUCCESS", (store.index,))
    try:
        # Changed after the snapshot: a later run, the latest of each configuration now.
        store.save(_suite("run-2", 0.1), CONTEXT)
        assert store.latest("bm25", DATASET).run_id == "run-2"  # type: ignore[union-attr]

        assert restore_snapshot(client, name, replace=True) == [store.index]
        assert store.run("run-1") == first
        assert store.run("run-2") == []
        assert store.latest("bm25", DATASET) == first[0]
        assert store.baseline("hybrid-rrf", DATASET) == first[1]

        client.indices.delete(index=store.index)  # lost altogether
        assert restore_snapshot(client, name) == [store.index]
        assert store.run("run-1") == first
        # The restored store takes new runs as before: the restored baseline stays the baseline.
        later = store.save(_suite("run-3", 0.5), CONTEXT)
        assert [r.is_baseline for r in later] == [False, False]
        assert store.baseline("bm25", DATASET) == first[0]
    finally:
        client.snapshot.delete(repository=DEFAULT_REPOSITORY, snapshot=name)
