"""Which models an index's vectors came from: recorded on the index, checked before an ingest writes.

A chunk index holds the dense and sparse vectors of one model each, and queries are encoded with the
configured models. Chunks of another model in the same index are wrong neighbours that nothing else
detects (changing ``models.dense`` does not re-encode an index), so an ingest records its models in the
index mapping's ``_meta`` and refuses to add chunks encoded by others.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from opensearchpy import OpenSearch

from control_plane.config.settings import ModelsSettings
from control_plane.errors import BiohybridError

log = logging.getLogger(__name__)
META_KEY = "biohybrid_models"


class IndexModelsError(BiohybridError, ValueError):
    """The index holds chunks of other models than this ingest encodes with; the message says what to do."""


def encoding_models(models: ModelsSettings) -> dict[str, str]:
    """The models an ingest with these settings encodes chunks with, as an index records them."""
    return {"dense": models.dense, "sparse": models.sparse}


def model_mismatches(
    recorded: Mapping[str, str], wanted: Mapping[str, str], wanted_by: str = "this ingest"
) -> list[str]:
    """One line per role the index records with another model than ``wanted`` (role order)."""
    return [
        f"{role}: the index has {recorded[role]}, {wanted_by} {name}"
        for role, name in sorted(wanted.items())
        if role in recorded and recorded[role] != name
    ]


def describe_index(recorded: Mapping[str, str] | None, configured: Mapping[str, str]) -> str:
    """One line for `biohybrid status`: the index's models, or how they differ from the configured ones."""
    if recorded is None:
        return "models not recorded (ingested before records were kept)"
    mismatches = model_mismatches(recorded, configured, "configured")
    if mismatches:
        return f"DIFFERS: {'; '.join(mismatches)} (re-ingest it, or query it with those models)"
    return ", ".join(f"{role} {name}" for role, name in sorted(recorded.items()))


def index_records(client: OpenSearch, pattern: str) -> dict[str, dict[str, str] | None]:
    """Each index matching ``pattern`` with the models it records (None: none recorded)."""
    mappings = client.indices.get_mapping(
        index=pattern, params={"allow_no_indices": "true", "ignore_unavailable": "true"}
    )
    return {
        index: _record(body.get("mappings", {}).get("_meta") or {})
        for index, body in sorted(mappings.items())
    }


def recorded_models(client: OpenSearch, index: str) -> dict[str, str] | None:
    """The models recorded on ``index`` (None: nothing recorded, e.g. made before records were kept)."""
    return _record(_meta(client, index))


def claim_index(client: OpenSearch, index: str, models: Mapping[str, str]) -> None:
    """Record ``models`` on ``index``, or raise :class:`IndexModelsError` when it records other ones.

    An index with chunks but no record (ingested before records were kept) cannot be checked: it is
    recorded from now on, with a warning.
    """
    meta = _meta(client, index)
    recorded = _record(meta)
    if recorded is not None:
        mismatches = model_mismatches(recorded, models)
        if mismatches:
            raise IndexModelsError(
                f"index {index} holds chunks encoded by other models ({'; '.join(mismatches)}): ingest "
                f"into a new index, delete {index} first, or set models.dense / models.sparse back to "
                "what it was built with"
            )
        if all(role in recorded for role in models):
            return
    else:
        chunks = int(client.count(index=index)["count"])
        if chunks:
            log.warning(
                "index has no recorded models: recording this ingest's",
                extra={"index": index, "chunks": chunks, "models": dict(models)},
            )
    merged = {**meta, META_KEY: {**(recorded or {}), **models}}
    client.indices.put_mapping(index=index, body={"_meta": merged})


def _record(meta: Mapping[str, Any]) -> dict[str, str] | None:
    value = meta.get(META_KEY)
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else None


def _meta(client: OpenSearch, index: str) -> dict[str, Any]:
    mappings = client.indices.get_mapping(index=index)
    (only,) = mappings.values()
    return dict(only.get("mappings", {}).get("_meta") or {})
