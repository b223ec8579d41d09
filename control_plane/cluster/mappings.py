"""Bring existing chunk indices up to the chunk template's mappings.

A template applies when an index is created, and the chunk mapping is strict: an index made before a
field existed (``layout``, say) refuses documents that carry it until its mapping has the field.
OpenSearch adds a field to a live index in place (PUT _mapping), so this adds exactly the fields an index
lacks and nothing else. A change it cannot make in place (another type or analyzer for an existing field,
an analyzer the index's settings do not define) is reported with its reason: that index needs a re-index.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from opensearchpy import OpenSearch, TransportError

from control_plane.resources.catalog import Resource, ResourceKind

CHUNK_MAPPINGS = "chunk-mappings"


class MappingAction(StrEnum):
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    REFUSED = "refused"


@dataclass(frozen=True)
class MappingUpdate:
    """What happened to one index: the field paths added, or why OpenSearch refused them."""

    index: str
    added: tuple[str, ...]
    error: str | None = None

    @property
    def action(self) -> MappingAction:
        if self.error is not None:
            return MappingAction.REFUSED
        return MappingAction.UPDATED if self.added else MappingAction.UNCHANGED


def chunk_mappings(resources: list[Resource]) -> dict[str, Any]:
    """The rendered mappings of the chunk-mappings component template."""
    for resource in resources:
        if resource.kind is ResourceKind.COMPONENT_TEMPLATE and resource.name == CHUNK_MAPPINGS:
            return dict(resource.body["template"]["mappings"])
    raise LookupError(f"no component template {CHUNK_MAPPINGS!r} among the rendered resources")


def missing_fields(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``expected`` (a ``properties`` mapping) that ``actual`` lacks, as a ``properties``
    mapping PUT _mapping accepts: a missing field whole; for an object field present in both, only its
    missing sub-fields; for a field present in both whose multi-fields (``fields``) lack one, the field
    restated whole (OpenSearch wants the type and parameters with a new multi-field)."""
    missing: dict[str, Any] = {}
    for name, definition in expected.items():
        current = actual.get(name)
        if current is None:
            missing[name] = copy.deepcopy(definition)
        elif "properties" in definition:
            inner = missing_fields(definition["properties"], current.get("properties", {}))
            if inner:
                missing[name] = {"properties": inner}
        elif set(definition.get("fields", {})) - set(current.get("fields", {})):
            missing[name] = copy.deepcopy(definition)
    return missing


def field_paths(properties: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Dotted paths of the leaves of a ``properties`` mapping (``layout``, ``source_meta.year``)."""
    paths: list[str] = []
    for name, definition in properties.items():
        path = f"{prefix}{name}"
        if "properties" in definition:
            paths += field_paths(definition["properties"], f"{path}.")
        else:
            paths.append(path)
    return paths


def update_index_mappings(
    client: OpenSearch, pattern: str, mappings: Mapping[str, Any]
) -> list[MappingUpdate]:
    """Add to each index matching ``pattern`` the fields of ``mappings`` it lacks; one result per index,
    in name order. Idempotent: a second run finds nothing missing."""
    found = client.indices.get_mapping(index=pattern, allow_no_indices=True, ignore_unavailable=True)
    results = []
    for index in sorted(found):
        actual = found[index].get("mappings", {}).get("properties", {})
        missing = missing_fields(mappings.get("properties", {}), actual)
        added = tuple(field_paths(missing))
        if not missing:
            results.append(MappingUpdate(index, ()))
            continue
        try:
            client.indices.put_mapping(index=index, body={"properties": missing})
        except TransportError as exc:
            reason = exc.info.get("error", {}).get("reason") if isinstance(exc.info, dict) else None
            results.append(
                MappingUpdate(index, added, f"{reason or exc.error}: re-index it to take the new mapping")
            )
            continue
        results.append(MappingUpdate(index, added))
    return results
