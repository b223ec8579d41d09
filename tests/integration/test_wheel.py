"""An installed wheel renders and applies everything from its package data, with no checkout in reach.

The wheel is built from a clean copy of this checkout's package files (pip, isolated build) and
installed without dependencies into a fresh virtual environment that borrows the test environment's
third-party packages through a .pth file; commands run from an empty folder, so only the installed copy
of control_plane can be imported.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

from control_plane.cluster.manage import current_resources
from control_plane.config.settings import LOCAL_FILE, Settings
from control_plane.locations import REPOSITORY_ROOT
from control_plane.mlcommons.registry import model_specs
from control_plane.models.artifacts import verified_artifact
from control_plane.models.manifest import load_manifest
from control_plane.serving import TOKEN_FILE_ENV, caller_token_file

pytestmark = pytest.mark.integration


def _clean_copy(target: Path) -> Path:
    """What the build reads (pyproject, README, the package), as git sees it: no stale build/ or egg-info
    of a working copy can put files in the wheel that package data would not."""
    wanted = ["pyproject.toml", "README.md", "control_plane"]
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *wanted],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPOSITORY_ROOT,
    ).stdout.split("\n")
    for name in filter(None, listed):
        if (REPOSITORY_ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPOSITORY_ROOT / name, target / name)
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv holding only the wheel (its dependencies borrowed)."""
    root = tmp_path_factory.mktemp("wheel")
    source = _clean_copy(root / "source")
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(root / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_NO_CACHE_DIR": "1"},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = (root / "dist").glob("*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "borrowed-dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)]
    installing = subprocess.run(pip, capture_output=True, text=True)
    assert installing.returncode == 0, installing.stderr[-3000:]
    return venv / "bin"


def _run(
    bin_dir: Path, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BIOHYBRID")}
    return subprocess.run(
        list(args), capture_output=True, text=True, cwd=cwd, env={**clean, **(env or {})}, timeout=300
    )


def test_the_installed_package_is_the_wheel(installed: Path, tmp_path: Path) -> None:
    found = _run(
        installed,
        str(installed / "python"),
        "-c",
        "import control_plane; print(control_plane.__file__)",
        cwd=tmp_path,
    )
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).is_relative_to(installed.parent), found.stdout


def test_the_wheel_applies_every_resource_and_verify_is_clean(
    installed: Path, tmp_path: Path, client: OpenSearch, applied: Settings
) -> None:
    expected = {r.label for r in current_resources(client, applied)}
    client.search_pipeline.delete(id="hybrid-rrf-explain")  # so the wheel has something to create
    applying = _run(
        installed, str(installed / "biohybrid"), "--config", str(LOCAL_FILE), "apply", "--json", cwd=tmp_path
    )
    assert applying.returncode == 0, applying.stderr[-3000:]
    actions = {item["resource"]: item["action"] for item in json.loads(applying.stdout)}
    assert set(actions) == expected
    assert actions["search_pipeline/hybrid-rrf-explain"] == "created"
    assert {a for label, a in actions.items() if label != "search_pipeline/hybrid-rrf-explain"} == {
        "unchanged"
    }
    verifying = _run(
        installed, str(installed / "biohybrid"), "--config", str(LOCAL_FILE), "verify", cwd=tmp_path
    )
    assert verifying.returncode == 0, verifying.stdout[-3000:]


def test_the_wheel_renders_the_same_model_connectors(
    installed: Path, tmp_path: Path, settings: Settings
) -> None:
    script = (
        "import json; from control_plane.config.settings import load_settings; "
        "from control_plane.mlcommons.registry import model_specs; "
        f"print(json.dumps([[s.name, s.connector] for s in model_specs(load_settings({str(LOCAL_FILE)!r}))]))"
    )
    token = {TOKEN_FILE_ENV: str(caller_token_file().resolve())}  # the connectors carry this checkout's
    rendered = _run(installed, str(installed / "python"), "-c", script, cwd=tmp_path, env=token)
    assert rendered.returncode == 0, rendered.stderr[-3000:]
    assert json.loads(rendered.stdout) == [[s.name, s.connector] for s in model_specs(settings)]


_SERVED_MODEL_FILES = (
    "import json, sys; from control_plane.models.manifest import load_manifest; "
    "from control_plane.models.artifacts import verified_artifact; m = load_manifest(); "
    "print(json.dumps([str(m.path), str(m.root), "
    "[str(verified_artifact(m, m.model(name)).model) for name in sys.argv[1:]]]))"
)


def test_the_wheel_reads_its_manifest_and_the_models_home(
    installed: Path, tmp_path: Path, settings: Settings
) -> None:
    served = [settings.models.dense, settings.models.sparse, settings.models.rerank]
    python = str(installed / "python")
    home = {"BIOHYBRID_MODELS_HOME": str(REPOSITORY_ROOT)}
    found = _run(installed, python, "-c", _SERVED_MODEL_FILES, *served, cwd=tmp_path, env=home)
    assert found.returncode == 0, found.stderr[-3000:]
    manifest_file, root, model_files = json.loads(found.stdout)
    assert Path(manifest_file).is_relative_to(installed.parent)  # the wheel's own copy
    assert root == str(REPOSITORY_ROOT)
    checkout = load_manifest()
    assert model_files == [str(verified_artifact(checkout, checkout.model(name)).model) for name in served]
    # Without a models home the wheel does not guess: the digest check names the missing file.
    homeless = _run(installed, python, "-c", _SERVED_MODEL_FILES, *served, cwd=tmp_path)
    assert homeless.returncode != 0
    assert "is missing" in homeless.stderr and "ArtifactError" in homeless.stderr
