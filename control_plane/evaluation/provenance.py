"""What a stored run was measured with: the models behind each role and the templates and pipelines,
so two runs with different numbers can be told apart by what changed."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from opensearchpy import OpenSearch

from control_plane.cluster.manage import verify_resources
from control_plane.config.settings import Settings
from control_plane.mlcommons.registry import models_status
from control_plane.models.manifest import ManifestError, load_manifest
from control_plane.resources.catalog import Resource, load_resources, project_version


def resource_digest(resource: Resource) -> str:
    """sha256 of the rendered body (canonical JSON), first 16 hex digits."""
    canonical = json.dumps(resource.body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def template_versions(resources: list[Resource], drifted: list[str]) -> dict[str, Any]:
    """Project version, a digest per resource (label -> digest) and the labels in drift on the cluster."""
    digests = {resource.label: resource_digest(resource) for resource in resources}
    combined = hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()[:16]
    return {"version": project_version(), "sha256": combined, "resources": digests, "drift": drifted}


def model_versions(client: OpenSearch, settings: Settings) -> dict[str, Any]:
    """Per role: the served model, its manifest source and runtime variant, its ml-commons id and state."""
    try:
        manifest = load_manifest()
    except ManifestError:
        manifest = None
    versions: dict[str, Any] = {"sparse_query_mode": settings.models.sparse_query_mode}
    for model in models_status(client, settings):
        entry: dict[str, Any] = {"name": model.name, "model_id": model.model_id, "state": model.state}
        served = str(getattr(settings.models, model.role, "") or "")
        if manifest is not None and served in manifest.models:
            spec = manifest.models[served]
            entry["source"] = spec.source.label
            entry["variant"] = spec.runtime_variant
        versions[model.role] = entry
    return versions


def collect_versions(client: OpenSearch, settings: Settings) -> tuple[dict[str, Any], dict[str, Any]]:
    """(model versions, template versions) as the cluster has them now."""
    models = model_versions(client, settings)
    deployed = {
        role: str(entry["model_id"])
        for role, entry in models.items()
        if isinstance(entry, dict) and entry.get("state") == "DEPLOYED"
    }
    resources = load_resources(settings, deployed)
    drift = verify_resources(client, resources)
    return models, template_versions(resources, sorted(label for label, diffs in drift.items() if diffs))
