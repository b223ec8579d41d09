"""Which models an index's vectors came from: recorded on the index, checked before an ingest writes.

A chunk index holds the dense and sparse vectors of one model each, and queries are encoded with the
configured models. Chunks of another model in the same index are wrong neighbours that nothing else
detects (a re-ingest skips chunks whose text is unchanged, whatever model encoded them), so an ingest
records its models in the index mapping's ``_meta`` and refuses to add chunks to an index whose chunks
came from other models, or from models nobody recorded; the refusal names the command that fixes it,
``biohybrid reencode`` (reencode.py), which re-encodes every chunk in place and then records the new
models. While a re-encode is under way (or was interrupted) the index records that, and an ingest is
refused until it finished.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from control_plane.config.models_settings import ModelsSettings
from control_plane.errors import BiohybridError

log = logging.getLogger(__name__)
META_KEY = "biohybrid_models"
REENCODING_KEY = "biohybrid_reencoding"


class IndexModelsError(BiohybridError, ValueError):
    """The index holds chunks of other models than this ingest encodes with; the message says what to do."""


@dataclass(frozen=True)
class Reencoding:
    """A re-encode under way: the models it encodes with, and the last chunk id (in chunk-id order)
    whose vectors are already theirs ("" when none is yet)."""

    to: dict[str, str]
    after: str = ""

    def to_meta(self) -> dict[str, Any]:
        return {"to": dict(self.to), "after": self.after}


@dataclass(frozen=True)
class IndexRecord:
    """What an index records of its vectors: the models (None: nothing recorded) and a re-encode under
    way (None: none)."""

    models: dict[str, str] | None
    reencoding: Reencoding | None = None


def encoding_models(models: ModelsSettings) -> dict[str, str]:
    """The models an ingest with these settings encodes chunks with, as an index records them."""
    return {"dense": models.dense, "sparse": models.sparse}


def reencode_command(index: str, tenant_id: str = "default") -> str:
    """The command that re-encodes ``index`` with the configured models (and resumes an interrupted one)."""
    tenant = "" if tenant_id == "default" else f" --tenant {tenant_id}"
    return f"biohybrid reencode --index {index}{tenant}"


def model_mismatches(
    recorded: Mapping[str, str], wanted: Mapping[str, str], wanted_by: str = "this ingest"
) -> list[str]:
    """One line per role the index records with another model than ``wanted`` (role order)."""
    return [
        f"{role}: the index has {recorded[role]}, {wanted_by} {name}"
        for role, name in sorted(wanted.items())
        if role in recorded and recorded[role] != name
    ]


def describe_index(index: str, record: IndexRecord, configured: Mapping[str, str]) -> str:
    """One line for `biohybrid status`: the index's models, or how they differ from the configured ones
    and the command that re-encodes it."""
    fix = f"`{reencode_command(index)}`"
    if record.reencoding is not None:
        done = f"done up to chunk {record.reencoding.after}" if record.reencoding.after else "none done yet"
        return f"RE-ENCODING to {named_models(record.reencoding.to)}: {done} ({fix} finishes it)"
    if record.models is None:
        return f"models not recorded (ingested before records were kept; {fix} re-encodes and records them)"
    mismatches = model_mismatches(record.models, configured, "configured")
    if mismatches:
        return f"DIFFERS: {'; '.join(mismatches)} ({fix}, or query it with those models)"
    return named_models(record.models)


def index_records(client: OpenSearch, pattern: str) -> dict[str, IndexRecord]:
    """Each index matching ``pattern`` with what it records of its models."""
    mappings = client.indices.get_mapping(
        index=pattern, params={"allow_no_indices": "true", "ignore_unavailable": "true"}
    )
    return {
        index: index_record(body.get("mappings", {}).get("_meta") or {})
        for index, body in sorted(mappings.items())
    }


def recorded_models(client: OpenSearch, index: str) -> dict[str, str] | None:
    """The models recorded on ``index`` (None: nothing recorded, e.g. made before records were kept)."""
    return index_record(read_meta(client, index)).models


def claim_index(
    client: OpenSearch, index: str, models: Mapping[str, str], tenant_id: str = "default"
) -> None:
    """Record ``models`` on ``index``, or raise :class:`IndexModelsError` when its chunks came from other
    models, from unrecorded ones, or are being re-encoded: the message names the command that fixes it.
    An empty index is claimed whatever it recorded."""
    meta = read_meta(client, index)
    record = index_record(meta)
    fix = reencode_command(index, tenant_id)
    if record.reencoding is not None:
        raise IndexModelsError(
            f"index {index} is being re-encoded (or its re-encode was interrupted): run `{fix}` to "
            "finish it, then ingest again"
        )
    recorded = record.models or {}
    if recorded and all(recorded.get(role) == name for role, name in models.items()):
        return
    chunks = int(client.count(index=index)["count"])
    if chunks:
        mismatches = model_mismatches(recorded, models)
        unrecorded = sorted(role for role in models if role not in recorded)
        why = "; ".join([*mismatches, *(f"{role}: not recorded" for role in unrecorded)])
        raise IndexModelsError(
            f"index {index} holds {chunks} chunks encoded by other or unrecorded models ({why}): run "
            f"`{fix}` to re-encode them with {named_models(models)}, then ingest again (or ingest into a new "
            "index, or set models.dense / models.sparse back to what the index was built with)"
        )
    write_meta(client, index, {**meta, META_KEY: dict(models)})


def index_record(meta: Mapping[str, Any]) -> IndexRecord:
    """The record kept in an index mapping's ``_meta``."""
    value = meta.get(META_KEY)
    models = {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else None
    pending = meta.get(REENCODING_KEY)
    reencoding = None
    if isinstance(pending, dict) and isinstance(pending.get("to"), dict):
        to = {str(k): str(v) for k, v in pending["to"].items()}
        reencoding = Reencoding(to, str(pending.get("after") or ""))
    return IndexRecord(models, reencoding)


def read_mapping(client: OpenSearch, index: str) -> dict[str, Any]:
    """The index's mappings (fields under ``properties``, the record under ``_meta``)."""
    (only,) = client.indices.get_mapping(index=index).values()
    return dict(only.get("mappings", {}))


def read_meta(client: OpenSearch, index: str) -> dict[str, Any]:
    """The index mapping's ``_meta`` (empty when it has none)."""
    return dict(read_mapping(client, index).get("_meta") or {})


def write_meta(client: OpenSearch, index: str, meta: Mapping[str, Any]) -> None:
    """Replace the index mapping's ``_meta`` (OpenSearch replaces it whole: callers merge)."""
    client.indices.put_mapping(index=index, body={"_meta": dict(meta)})


def named_models(models: Mapping[str, str]) -> str:
    """``dense X, sparse Y``: how messages name a set of models."""
    return ", ".join(f"{role} {name}" for role, name in sorted(models.items()))
