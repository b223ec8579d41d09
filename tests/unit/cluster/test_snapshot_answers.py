"""Reading the node's snapshot answers (hand-written examples of the documented shapes)."""

from __future__ import annotations

from control_plane.cluster.snapshots import SnapshotInfo, model_mismatches, repository_paths, snapshot_info


def test_a_snapshot_entry_becomes_a_value() -> None:
    raw = {
        "snapshot": "nightly",
        "state": "SUCCESS",
        "indices": ["eval-runs", "chunks-a"],
        "start_time": "2026-11-23T20:00:00.000Z",
        "shards": {"total": 2, "failed": 0, "successful": 2},
    }
    assert snapshot_info(raw) == SnapshotInfo(
        "nightly", "SUCCESS", ("chunks-a", "eval-runs"), "2026-11-23T20:00:00.000Z", 2, 0
    )


def test_repository_paths_are_those_every_node_has() -> None:
    nodes = {
        "nodes": {
            "a": {"settings": {"path": {"repo": ["/srv/snap", "/tmp/x"]}}},
            "b": {"settings": {"path": {"repo": "/srv/snap"}}},
        }
    }
    assert repository_paths(nodes) == ["/srv/snap"]
    assert repository_paths({"nodes": {"a": {"settings": {"path": {}}}}}) == []
    assert repository_paths({}) == []


def test_the_models_a_snapshot_recorded_are_read_back() -> None:
    raw = {
        "snapshot": "with-models",
        "state": "SUCCESS",
        "metadata": {"models": {"dense": "bge-small", "sparse": "splade-tiny", "rerank": "ce-minilm"}},
    }
    assert snapshot_info(raw).models == {"dense": "bge-small", "sparse": "splade-tiny", "rerank": "ce-minilm"}
    assert snapshot_info({"snapshot": "older"}).models == {}


def test_a_model_mismatch_names_the_role_and_both_models() -> None:
    recorded = {"dense": "bge-small", "sparse": "splade-tiny"}
    assert model_mismatches(recorded, {"dense": "bge-small", "sparse": "splade-tiny", "rerank": "x"}) == []
    assert model_mismatches(recorded, {"dense": "minilm", "sparse": "splade-tiny"}) == [
        "dense: snapshot bge-small, settings minilm"
    ]
    assert model_mismatches({}, {"dense": "minilm"}) == []  # a snapshot without a record is not compared
