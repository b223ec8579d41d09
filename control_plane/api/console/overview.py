"""Models, pipelines and drift at a glance: what `biohybrid models status` and `biohybrid verify` say,
for the console's overview panel and its list of pipelines a configuration may name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opensearchpy import OpenSearch

from control_plane.cluster.manage import current_resources, verify_resources
from control_plane.cluster.status import resource_state
from control_plane.config.settings import Settings
from control_plane.mlcommons.registry import models_status
from control_plane.resources.catalog import Resource, ResourceKind


def pipeline_names(resources: Sequence[Resource]) -> list[str]:
    """The search pipelines the project installs (the names a pipeline configuration may use)."""
    return sorted(r.name for r in resources if r.kind is ResourceKind.SEARCH_PIPELINE)


def known_pipelines(client: OpenSearch, settings: Settings) -> list[str]:
    return pipeline_names(current_resources(client, settings))


def overview(client: OpenSearch, settings: Settings) -> dict[str, Any]:
    """Each role's model and state, the project's pipelines, and every resource's drift."""
    resources = current_resources(client, settings)
    drift = verify_resources(client, resources)
    states = [
        {"label": label, "state": resource_state(diffs), "differences": [str(d) for d in diffs]}
        for label, diffs in sorted(drift.items())
    ]
    return {
        "models": [vars(model) for model in models_status(client, settings)],
        "pipelines": pipeline_names(resources),
        "resources": states,
        "drifted": sum(1 for state in states if state["differences"]),
    }
