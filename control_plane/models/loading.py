"""Load a model named in the manifest: verify its files, open the session, build its tokenizer."""

from __future__ import annotations

from dataclasses import dataclass

from control_plane.models.artifacts import ArtifactFiles, verified_artifact
from control_plane.models.manifest import Manifest, ManifestError, ModelSpec, Role, load_manifest
from control_plane.models.runtime import Device, OnnxModel
from control_plane.models.tokenization import BatchTokenizer


@dataclass(frozen=True)
class LoadedModel:
    spec: ModelSpec
    files: ArtifactFiles
    session: OnnxModel
    tokenizer: BatchTokenizer


def load_model(
    name: str | None,
    role: Role,
    *,
    manifest: Manifest | None = None,
    variant: str | None = None,
    device: Device = "auto",
    threads: int = 0,
) -> LoadedModel:
    """Load ``name`` (default: the manifest's default ``role`` model); a model of another role is refused."""
    manifest = manifest or load_manifest()
    spec = manifest.model(name) if name else manifest.default_model(role)
    if spec.role != role:
        raise ManifestError(f"model '{spec.name}' is a {spec.role} model, not {role}")
    files = verified_artifact(manifest, spec, variant)
    return LoadedModel(
        spec=spec,
        files=files,
        session=OnnxModel(files.model, device=device, threads=threads),
        tokenizer=BatchTokenizer.from_file(files.tokenizer, spec.max_length),
    )
