"""-rerank pipelines on rerank models of their own: each variant's connector is rendered from other settings
than the registered models' (a tighter budget, a service URL nothing listens on, blend weight 0), registered
in the tests' model group beside them, so a test makes the real reranker miss its budget or be unreachable
without touching the pipelines other tests query."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager

from integration.node_state import TEST_GROUP
from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.mlcommons.ml_api import deploy_model, ml, remove_model
from control_plane.mlcommons.registry import model_specs
from control_plane.resources.catalog import ResourceKind, load_resources


@contextmanager
def rerank_variants(
    client: OpenSearch,
    model_ids: Mapping[str, str],
    variants: Mapping[str, Settings],
    forms: Collection[str],
    prefix: str,
) -> Iterator[dict[tuple[str, str], str]]:
    """``{(label, form): pipeline name}``: for each ``variants`` label, a rerank model whose connector is
    rendered from that label's settings, and the search pipelines named in ``forms`` (``hybrid-rrf-rerank``,
    ``clinical-rrf-rerank``, or a fused form such as ``hybrid-rrf``) rendered with it in place of
    ``model_ids["rerank"]`` (the other roles keep ``model_ids``), put as ``<prefix>-<label>-<form>``. All
    removed on exit (a killed session's models are the tests' group's: node_state.py removes them)."""
    group_id = ml(client).get_model(model_id=model_ids["rerank"])["model_group_id"]
    created: list[tuple[str, str]] = []
    names: dict[tuple[str, str], str] = {}
    try:
        for label, settings in variants.items():
            [spec] = [s for s in model_specs(settings) if s.role == "rerank"]
            name = f"{TEST_GROUP}-rerank-{label}-{prefix}"
            connector = {**spec.connector, "name": f"{name}-connector"}
            connector_id = ml(client).create_connector(body=connector)["connector_id"]
            body = {"name": name, "function_name": "remote", "model_group_id": group_id}
            model_id = ml(client).register_model(body={**body, "connector_id": connector_id})["model_id"]
            created.append((model_id, connector_id))
            deploy_model(client, model_id, 60)
            for resource in load_resources(settings, {**model_ids, "rerank": model_id}):
                if resource.kind is ResourceKind.SEARCH_PIPELINE and resource.name in forms:
                    pipeline = f"{prefix}-{label}-{resource.name}"
                    client.search_pipeline.put(id=pipeline, body=resource.body)
                    names[(label, resource.name)] = pipeline
        yield names
    finally:
        for pipeline in names.values():
            client.search_pipeline.delete(id=pipeline, ignore=[404])
        for model_id, connector_id in created:
            remove_model(client, model_id, connector_id)
