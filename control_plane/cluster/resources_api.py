"""Put and get the project's resources by kind; ``None`` from get means absent."""

from __future__ import annotations

from typing import Any

from opensearchpy import OpenSearch

from control_plane.resources.catalog import Resource, ResourceKind


def put_resource(client: OpenSearch, resource: Resource) -> None:
    if resource.kind is ResourceKind.COMPONENT_TEMPLATE:
        client.cluster.put_component_template(name=resource.name, body=resource.body)
    elif resource.kind is ResourceKind.INDEX_TEMPLATE:
        client.indices.put_index_template(name=resource.name, body=resource.body)
    elif resource.kind is ResourceKind.INGEST_PIPELINE:
        client.ingest.put_pipeline(id=resource.name, body=resource.body)
    else:
        client.search_pipeline.put(id=resource.name, body=resource.body)


def get_resource(client: OpenSearch, kind: ResourceKind, name: str) -> dict[str, Any] | None:
    """The resource as the cluster holds it, None when absent. An absent one is expected (a first
    install), so its 404 is asked for (``ignore``): opensearch-py then neither raises nor logs a warning,
    while any other failure still does both."""
    params = {"ignore": 404}
    if kind is ResourceKind.COMPONENT_TEMPLATE:
        found = client.cluster.get_component_template(name=name, params=params).get("component_templates")
        return dict(found[0]["component_template"]) if found else None
    if kind is ResourceKind.INDEX_TEMPLATE:
        found = client.indices.get_index_template(name=name, params=params).get("index_templates")
        return dict(found[0]["index_template"]) if found else None
    if kind is ResourceKind.INGEST_PIPELINE:
        answer = client.ingest.get_pipeline(id=name, params=params)
    else:
        answer = client.search_pipeline.get(id=name, params=params)
    return dict(answer[name]) if name in answer else None
