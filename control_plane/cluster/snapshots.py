"""Backups: snapshots of the project's indices into a filesystem repository under the node's ``path.repo``
(the Ansible role sets it), listed and restored by name.

What a snapshot holds: the chunk indices and the eval-runs store (``DEFAULT_INDICES``). The ml-commons
model registrations are not restored from it: `biohybrid models register` recreates them idempotently
against the inference service of the cluster being restored into (their connectors name its URL).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opensearchpy import NotFoundError, OpenSearch

from control_plane.errors import BadRequestError, BiohybridError

DEFAULT_REPOSITORY = "biohybrid-backups"
DEFAULT_INDICES = ("chunks-*", "eval-runs")


class SnapshotError(BiohybridError, RuntimeError):
    """A snapshot could not be taken or restored; the message says what the node answered."""


class NoSnapshotPathError(BadRequestError):
    """The node has no path.repo, so a filesystem repository cannot be registered."""


@dataclass(frozen=True)
class SnapshotInfo:
    name: str
    state: str
    indices: tuple[str, ...]
    start: str
    shards_total: int
    shards_failed: int


def snapshot_info(raw: dict[str, Any]) -> SnapshotInfo:
    """One entry of ``GET _snapshot/<repo>/...`` as a value."""
    shards = raw.get("shards") or {}
    return SnapshotInfo(
        name=str(raw["snapshot"]),
        state=str(raw.get("state", "UNKNOWN")),
        indices=tuple(sorted(raw.get("indices") or [])),
        start=str(raw.get("start_time", "")),
        shards_total=int(shards.get("total", 0)),
        shards_failed=int(shards.get("failed", 0)),
    )


def repository_paths(nodes_settings: dict[str, Any]) -> list[str]:
    """The path.repo entries every node of ``GET _nodes/settings`` agrees on (first node's order)."""
    per_node = []
    for node in (nodes_settings.get("nodes") or {}).values():
        repo = (((node.get("settings") or {}).get("path") or {}).get("repo")) or []
        per_node.append([repo] if isinstance(repo, str) else list(repo))
    if not per_node:
        return []
    shared = set(per_node[0]).intersection(*map(set, per_node[1:]))
    return [path for path in per_node[0] if path in shared]


def ensure_repository(client: OpenSearch, name: str = DEFAULT_REPOSITORY) -> str:
    """Register the filesystem repository ``name`` under the node's path.repo if it is not there yet;
    returns its location. Idempotent."""
    try:
        existing = client.snapshot.get_repository(repository=name)
        return str(existing[name]["settings"]["location"])
    except NotFoundError:
        pass
    paths = repository_paths(client.nodes.info(metric="settings"))
    if not paths:
        raise NoSnapshotPathError(
            "the node has no path.repo: provision it with the Ansible role (opensearch_snapshot_dir) "
            "or add path.repo to opensearch.yml and restart it"
        )
    location = f"{paths[0].rstrip('/')}/{name}"
    client.snapshot.create_repository(
        repository=name, body={"type": "fs", "settings": {"location": location}}
    )
    return location


def create_snapshot(
    client: OpenSearch,
    name: str,
    indices: Sequence[str] = DEFAULT_INDICES,
    repository: str = DEFAULT_REPOSITORY,
) -> SnapshotInfo:
    """Snapshot ``indices`` (missing ones skipped) and wait for it; a partial snapshot is an error."""
    ensure_repository(client, repository)
    body = {"indices": ",".join(indices), "ignore_unavailable": True, "include_global_state": False}
    answer = client.snapshot.create(
        repository=repository, snapshot=name, body=body, params={"wait_for_completion": "true"}
    )
    info = snapshot_info(answer["snapshot"])
    if info.state != "SUCCESS":
        raise SnapshotError(
            f"snapshot {name} ended {info.state} ({info.shards_failed} of {info.shards_total} shards failed)"
        )
    return info


def list_snapshots(client: OpenSearch, repository: str = DEFAULT_REPOSITORY) -> list[SnapshotInfo]:
    """The repository's snapshots, oldest first ([] when the repository is not registered)."""
    try:
        answer = client.snapshot.get(repository=repository, snapshot="_all")
    except NotFoundError:
        return []
    return [snapshot_info(raw) for raw in answer.get("snapshots", [])]


def restore_snapshot(
    client: OpenSearch,
    name: str,
    *,
    replace: bool = False,
    repository: str = DEFAULT_REPOSITORY,
) -> list[str]:
    """Restore every index of snapshot ``name``; with ``replace``, indices of the same names are deleted
    first (a restore never overwrites an open index). Returns the restored index names."""
    found = [s for s in list_snapshots(client, repository) if s.name == name]
    if not found:
        raise SnapshotError(
            f"no snapshot {name!r} in repository {repository!r} (see `biohybrid snapshot list`)"
        )
    indices = list(found[0].indices)
    present = [index for index in indices if client.indices.exists(index=index)]
    if present and not replace:
        raise SnapshotError(
            f"indices {present} exist: pass --replace to delete them and restore the snapshot's copies"
        )
    for index in present:
        client.indices.delete(index=index)
    client.snapshot.restore(
        repository=repository,
        snapshot=name,
        body={"indices": ",".join(indices), "include_global_state": False},
        params={"wait_for_completion": "true"},
    )
    health = client.cluster.health(
        index=",".join(indices), params={"wait_for_status": "yellow", "request_timeout": 60}
    )  # the node waits up to its default 30 s
    if health.get("timed_out"):
        raise SnapshotError(
            f"restored {indices}, but they are not allocated yet (health {health.get('status')})"
        )
    return indices
