"""Put and get the project's resources by kind; ``None`` from get means absent."""

from __future__ import annotations

from typing import Any

from opensearchpy import NotFoundError, OpenSearch

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
    try:
        if kind is ResourceKind.COMPONENT_TEMPLATE:
            found = client.cluster.get_component_template(name=name)["component_templates"]
            return dict(found[0]["component_template"]) if found else None
        if kind is ResourceKind.INDEX_TEMPLATE:
            found = client.indices.get_index_template(name=name)["index_templates"]
            return dict(found[0]["index_template"]) if found else None
        if kind is ResourceKind.INGEST_PIPELINE:
            return dict(client.ingest.get_pipeline(id=name)[name])
        return dict(client.search_pipeline.get(id=name)[name])
    except NotFoundError:
        return None
