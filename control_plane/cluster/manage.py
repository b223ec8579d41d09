"""apply / verify: install the repository's resources idempotently and report drift."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

from opensearchpy import OpenSearch

from control_plane.cluster.resources_api import get_resource, put_resource
from control_plane.config.settings import Settings
from control_plane.errors import BiohybridError
from control_plane.mlcommons.registry import registered_model_ids
from control_plane.resources.catalog import Resource, load_resources
from control_plane.resources.drift import Difference, diff
from control_plane.resources.versions import (
    Version,
    check_settings_for,
    for_version,
    is_supported,
    left_out_on,
    support_line,
)

log = logging.getLogger(__name__)

# Distributions built without the k-NN native libraries: the Maven Central integ-test-zip.
_BUILDS_WITHOUT_KNN_NATIVES = frozenset({"zip"})


class Action(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class ApplyResult:
    label: str
    action: Action


class EngineUnavailableError(BiohybridError, RuntimeError):
    """The configured k-NN engine cannot work on this node."""


def node_version(client: OpenSearch) -> Version:
    return Version.parse(client.info()["version"]["number"])


def check_node(client: OpenSearch, settings: Settings) -> Version:
    """What the node's version and build cannot do, refused before anything is written: settings its
    version cannot honour (``versions.py``), a version nothing here was tested on (a warning), and faiss
    on a build without its natives (``check_knn_engine``)."""
    info = client.info()["version"]
    version = Version.parse(info["number"])
    check_settings_for(version, settings)
    if not is_supported(version):
        log.warning("unsupported OpenSearch version", extra={"version": support_line(version)})
    check_knn_engine(info.get("build_type", ""), settings)
    return version


def check_knn_engine(build_type: str, settings: Settings) -> None:
    """Refuse faiss on a node assembled from Maven Central: it has no faiss natives, and the first
    flush of a faiss field kills the JVM (UnsatisfiedLinkError), so failing here is the kind option."""
    if settings.index.knn.engine == "faiss" and build_type in _BUILDS_WITHOUT_KNN_NATIVES:
        raise EngineUnavailableError(
            f"index.knn.engine is faiss but this node is a '{build_type}' build without the k-NN native "
            "libraries; set index.knn.engine: lucene (e.g. --config control_plane/config/local.yaml or "
            "BIOHYBRID__INDEX__KNN__ENGINE=lucene), or install OpenSearch from the official bundle"
        )


def apply_resources(client: OpenSearch, settings: Settings, resources: list[Resource]) -> list[ApplyResult]:
    """Create or update each resource whose cluster copy differs (as the node's version reads it:
    ``versions.for_version``); leave matching ones alone."""
    version = check_node(client, settings)
    for label, why in left_out_on(version, resources):
        log.warning("not installed on this OpenSearch version", extra={"resource": label, "why": why})
    results = []
    for resource in for_version(version, resources):
        current = get_resource(client, resource.kind, resource.name)
        if current is not None and not diff(resource.body, current):
            action = Action.UNCHANGED
        else:
            put_resource(client, resource)
            action = Action.CREATED if current is None else Action.UPDATED
        log.debug("apply", extra={"resource": resource.label, "action": action.value})
        results.append(ApplyResult(resource.label, action))
    return results


def verify_resources(
    client: OpenSearch, resources: list[Resource], version: Version | None = None
) -> dict[str, list[Difference]]:
    """Drift per resource label (an empty list means in sync), against the form the node's version
    (``version``, read from the node when not given) reads."""
    wanted = for_version(version or node_version(client), resources)
    return {r.label: diff(r.body, get_resource(client, r.kind, r.name)) for r in wanted}


def current_resources(client: OpenSearch, settings: Settings) -> list[Resource]:
    """The resources as they should be now: with the ids of the registered models, deployed or being
    redeployed (what `apply`, `verify`, `status` and the admin API compare the cluster with)."""
    return load_resources(settings, registered_model_ids(client, settings))
