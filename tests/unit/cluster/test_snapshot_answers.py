"""Reading the node's snapshot answers (hand-written examples of the documented shapes)."""

from __future__ import annotations

from control_plane.cluster.snapshots import SnapshotInfo, repository_paths, snapshot_info


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
