"""status: what an operator needs to know about the node and the project's resources at a glance."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from opensearchpy import OpenSearch, TransportError

from control_plane.cluster.manage import verify_resources
from control_plane.config.settings import Settings
from control_plane.ingestion.index_models import describe_index, encoding_models, index_records
from control_plane.resources.catalog import Resource
from control_plane.resources.versions import Version, support_line, unhonoured_settings

REQUIRED_PLUGINS = ("opensearch-job-scheduler", "opensearch-ml", "opensearch-knn", "opensearch-neural-search")


# Shard counters of the cluster health answer, in the order an operator reads them.
SHARD_COUNTERS = (
    "active_primary_shards",
    "active_shards",
    "relocating_shards",
    "initializing_shards",
    "unassigned_shards",
)


@dataclass(frozen=True)
class ClusterNode:
    """One node: where it answers, what it may do, whether it leads, how many shard copies it holds."""

    name: str
    http_address: str
    roles: list[str]
    cluster_manager: bool
    shards: int


@dataclass(frozen=True)
class NodeStatus:
    url: str
    cluster_name: str
    health: str
    version: str
    build_type: str
    # "3.6.0 (supported; supported: 2.19.1, 3.6.0)" and the settings this version cannot honour
    # (control_plane/resources/versions.py).
    version_support: str
    unhonoured_settings: list[str]
    nodes: list[str]
    plugins: list[str]
    missing_plugins: list[str]
    modules: list[str]
    knn_engine: str
    resources: dict[str, str] = field(default_factory=dict)
    node_details: list[ClusterNode] = field(default_factory=list)
    shards: dict[str, int] = field(default_factory=dict)
    # Each chunk index with the models its chunks were encoded with, or how they differ from the
    # configured ones (control_plane/ingestion/index_models.py).
    indices: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_status(client: OpenSearch, settings: Settings, resources: list[Resource]) -> NodeStatus:
    info = client.info()
    version = Version.parse(info["version"]["number"])
    health = client.cluster.health()
    nodes = client.nodes.info(metric="plugins,http")["nodes"]  # one call serves plugins and node details
    plugins = sorted({p["name"] for node in nodes.values() for p in node.get("plugins", [])})
    modules = sorted({m["name"] for node in nodes.values() for m in node.get("modules", [])})
    drift = verify_resources(client, resources, version)
    details = read_nodes(client, nodes)
    return NodeStatus(
        url=", ".join(settings.opensearch.hosts),
        cluster_name=info["cluster_name"],
        health=health["status"],
        version=info["version"]["number"],
        build_type=info["version"].get("build_type", ""),
        version_support=support_line(version),
        unhonoured_settings=unhonoured_settings(version, settings),
        nodes=sorted(node["name"] for node in nodes.values()),
        plugins=plugins,
        missing_plugins=[p for p in REQUIRED_PLUGINS if p not in plugins],
        modules=modules,
        knn_engine=settings.index.knn.engine,
        resources={label: resource_state(diffs) for label, diffs in drift.items()},
        node_details=details,
        shards={key: int(health.get(key, 0)) for key in SHARD_COUNTERS},
        indices=_index_models(client, settings),
    )


def _index_models(client: OpenSearch, settings: Settings) -> dict[str, str]:
    configured = encoding_models(settings.models)
    try:
        records = index_records(client, f"{settings.index.prefix}-*")
    except TransportError as exc:  # e.g. a user who may not read the chunk indices' mappings
        return {f"{settings.index.prefix}-*": f"not readable ({exc.status_code})"}
    return {index: describe_index(index, record, configured) for index, record in records.items()}


def read_nodes(client: OpenSearch, info: dict[str, Any]) -> list[ClusterNode]:
    """Every node of ``info`` (``_nodes`` with the http metric) with its shard copies
    (``_cat/allocation``) and whether it is the elected manager."""
    manager = {row["node"] for row in client.cat.cluster_manager(format="json")}
    shards = {
        row["node"]: int(row["shards"])
        for row in client.cat.allocation(format="json")
        if row.get("node") != "UNASSIGNED"
    }
    return sorted(
        (
            ClusterNode(
                name=node["name"],
                http_address=node.get("http", {}).get("publish_address", ""),
                roles=sorted(node.get("roles", [])),
                cluster_manager=node["name"] in manager,
                shards=shards.get(node["name"], 0),
            )
            for node in info.values()
        ),
        key=lambda node: node.name,
    )


def resource_state(diffs: list[Any]) -> str:
    """A resource's drift in words: in sync, missing, or drift with the count of differences."""
    if not diffs:
        return "in sync"
    if len(diffs) == 1 and diffs[0].actual == "missing":
        return "missing"
    return f"drift ({len(diffs)} differences)"
