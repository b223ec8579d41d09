"""Locate a model's built ONNX folder and check every file against the manifest's sha256.

Verifying at load means a stale, truncated or hand-edited artifact is refused with a message naming
the file and the command that rebuilds it, instead of silently producing different vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from control_plane.checksums import sha256_file
from control_plane.errors import BiohybridError
from control_plane.models.manifest import Manifest, ModelSpec

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
REQUIRED_FILES = (MODEL_FILE, TOKENIZER_FILE)


class ArtifactError(BiohybridError, RuntimeError):
    """A model artifact is missing or differs from the manifest; the message says how to rebuild it."""


@dataclass(frozen=True)
class ArtifactFiles:
    """The verified files of one model variant."""

    name: str
    variant: str
    folder: Path
    model: Path
    tokenizer: Path


def rebuild_hint(spec: ModelSpec) -> str:
    """How a missing or changed artifact of ``spec`` is made again."""
    return "fetch with `biohybrid models fetch`" if spec.source.fetched else f"rebuild with `{spec.build}`"


def check_artifact_present(manifest: Manifest, spec: ModelSpec) -> None:
    """The runtime variant's files exist (no digests: a start-up check that costs nothing; loading
    verifies them)."""
    artifact = spec.artifacts.get(spec.runtime_variant)
    if artifact is None:
        raise ArtifactError(
            f"model '{spec.name}' has no recorded artifact in {manifest.path}; {rebuild_hint(spec)}"
        )
    folder = manifest.root / artifact.path
    missing = sorted(name for name in artifact.files if not (folder / name).is_file())
    if missing:
        raise ArtifactError(
            f"model '{spec.name}' is missing {', '.join(missing)} in {folder}; {rebuild_hint(spec)}"
        )


def verified_artifact(manifest: Manifest, spec: ModelSpec, variant: str | None = None) -> ArtifactFiles:
    """Return the files of ``spec``'s variant (default: its runtime variant) once their digests match."""
    chosen = variant or spec.runtime_variant
    artifact = spec.artifacts.get(chosen)
    rebuild = rebuild_hint(spec)
    if artifact is None or not artifact.files:
        raise ArtifactError(
            f"model '{spec.name}' has no recorded '{chosen}' artifact in {manifest.path}; {rebuild}"
        )
    folder = manifest.root / artifact.path
    for filename in REQUIRED_FILES:
        if filename not in artifact.files:
            raise ArtifactError(f"{manifest.path} lists no {filename} for {spec.name}/{chosen}; {rebuild}")
    for filename, expected in artifact.files.items():
        path = folder / filename
        if not path.is_file():
            raise ArtifactError(f"model file {path} is missing; {rebuild}")
        actual = sha256_file(path)
        if actual != expected.sha256:
            raise ArtifactError(
                f"model file {path} has sha256 {actual}, but {manifest.path} expects {expected.sha256}; "
                f"{rebuild}"
            )
    return ArtifactFiles(
        name=spec.name,
        variant=chosen,
        folder=folder,
        model=folder / MODEL_FILE,
        tokenizer=folder / TOKENIZER_FILE,
    )
