"""Backups: snapshots of the project's indices into a filesystem repository under the node's ``path.repo``
(the Ansible role sets it), listed and restored by name.

What a snapshot holds: the chunk indices and the eval-runs store (``DEFAULT_INDICES``), and in its
metadata the models whose vectors those indices hold. ml-commons' own system indices are not
snapshotted: their connectors name one cluster's inference service and their deployment state does not
survive a restore. A restore instead registers the recorded models again, idempotently, against the
inference service of the cluster restored into, and re-applies the search pipelines with their ids, so
plain-text queries give the results they gave before; it refuses when the settings name other models
than the snapshot's vectors were made with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import NotFoundError, OpenSearch

from control_plane.cluster.manage import apply_resources
from control_plane.config.settings import Settings
from control_plane.errors import BadRequestError, BiohybridError
from control_plane.mlcommons.registry import RegisteredModel, register_models
from control_plane.resources.catalog import load_resources

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
    # The models whose vectors the indices hold ({"dense": name, "sparse": name, "rerank": name}).
    models: dict[str, str] = field(default_factory=dict)


def model_choice(settings: Settings) -> dict[str, str]:
    """The configured models, as a snapshot records them."""
    chosen = settings.models
    return {"dense": chosen.dense, "sparse": chosen.sparse, "rerank": chosen.rerank}


def model_mismatches(recorded: Mapping[str, str], current: Mapping[str, str]) -> list[str]:
    """Each role whose model differs between a snapshot and the settings, as "role: snapshot X, settings
    Y" (roles a snapshot did not record are not compared)."""
    return [
        f"{role}: snapshot {model}, settings {current.get(role)}"
        for role, model in sorted(recorded.items())
        if current.get(role) != model
    ]


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
        models={str(k): str(v) for k, v in ((raw.get("metadata") or {}).get("models") or {}).items()},
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
    models: Mapping[str, str] | None = None,
) -> SnapshotInfo:
    """Snapshot ``indices`` (missing ones skipped) and wait for it; a partial snapshot is an error.
    ``models`` (see :func:`model_choice`) goes into the snapshot's metadata."""
    ensure_repository(client, repository)
    body: dict[str, Any] = {
        "indices": ",".join(indices),
        "ignore_unavailable": True,
        "include_global_state": False,
        "metadata": {"models": dict(models or {})},
    }
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
    indices = list(find_snapshot(client, name, repository).indices)
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


def find_snapshot(client: OpenSearch, name: str, repository: str = DEFAULT_REPOSITORY) -> SnapshotInfo:
    found = [s for s in list_snapshots(client, repository) if s.name == name]
    if not found:
        raise SnapshotError(
            f"no snapshot {name!r} in repository {repository!r} (see `biohybrid snapshot list`)"
        )
    return found[0]


def require_same_models(snapshot: SnapshotInfo, settings: Settings) -> None:
    """Refuse when the settings name other models than the snapshot's vectors were made with."""
    mismatches = model_mismatches(snapshot.models, model_choice(settings))
    if mismatches:
        raise SnapshotError(
            f"snapshot {snapshot.name} was taken with other models ({'; '.join(mismatches)}): set "
            "models.* in the settings to the snapshot's, or restore with --no-models and re-index"
        )


def restore_models(client: OpenSearch, settings: Settings, snapshot: SnapshotInfo) -> list[RegisteredModel]:
    """Register the snapshot's models in ml-commons again (idempotent by name, against this cluster's
    inference service) and re-apply the templates and pipelines with their ids."""
    require_same_models(snapshot, settings)
    registered = register_models(client, settings)
    apply_resources(client, settings, load_resources(settings, {m.role: m.model_id for m in registered}))
    return registered
