"""status: what an operator needs to know about the node and the project's resources at a glance."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from opensearchpy import OpenSearch

from control_plane.cluster.manage import verify_resources
from control_plane.config.settings import Settings
from control_plane.resources.catalog import Resource

REQUIRED_PLUGINS = ("opensearch-job-scheduler", "opensearch-ml", "opensearch-knn", "opensearch-neural-search")


@dataclass(frozen=True)
class NodeStatus:
    url: str
    cluster_name: str
    health: str
    version: str
    build_type: str
    nodes: list[str]
    plugins: list[str]
    missing_plugins: list[str]
    modules: list[str]
    knn_engine: str
    resources: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_status(client: OpenSearch, settings: Settings, resources: list[Resource]) -> NodeStatus:
    info = client.info()
    health = client.cluster.health()
    nodes = client.nodes.info(metric="plugins")["nodes"]
    plugins = sorted({p["name"] for node in nodes.values() for p in node.get("plugins", [])})
    modules = sorted({m["name"] for node in nodes.values() for m in node.get("modules", [])})
    drift = verify_resources(client, resources)
    return NodeStatus(
        url=settings.opensearch.url,
        cluster_name=info["cluster_name"],
        health=health["status"],
        version=info["version"]["number"],
        build_type=info["version"].get("build_type", ""),
        nodes=sorted(node["name"] for node in nodes.values()),
        plugins=plugins,
        missing_plugins=[p for p in REQUIRED_PLUGINS if p not in plugins],
        modules=modules,
        knn_engine=settings.index.knn.engine,
        resources={label: _state(diffs) for label, diffs in drift.items()},
    )


def _state(diffs: list[Any]) -> str:
    if not diffs:
        return "in sync"
    if len(diffs) == 1 and diffs[0].actual == "missing":
        return "missing"
    return f"drift ({len(diffs)} differences)"
