"""`make run`'s ingest from a clone in a folder with nothing beside it (issue 49): the demo corpus ships in
the repository, so no ``../shared`` and no ``$BIOHYBRID_DATASETS_DIR`` are needed.

The clone is the checkout's files as git sees them (tracked and new, not ignored), copied into an empty
folder; the clone's own code runs (``PYTHONPATH``), with its own settings file. Two ignored folders stand
in for what ``make setup`` would put inside the clone: the fetched models (``.cache``, linked) and the
encoding cache (so the demo's vectors are read, not computed again on two cores).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.names import session_index
from integration.node import demo_encoding_lock
from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.datasets.locate import DATASETS_DIR_ENV_VAR
from control_plane.locations import REPOSITORY_ROOT

pytestmark = pytest.mark.integration


def _copy_checkout(target: Path) -> Path:
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
            cwd=REPOSITORY_ROOT,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPOSITORY_ROOT / name
        if source.is_file() and not source.is_symlink():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("anywhere")
    target = _copy_checkout(folder / "biohybrid")
    (target / ".cache").symlink_to(REPOSITORY_ROOT / ".cache", target_is_directory=True)
    assert [p.name for p in folder.iterdir()] == ["biohybrid"]  # nothing beside it
    return target


@pytest.fixture
def index(client: OpenSearch, applied: Settings) -> Iterator[str]:
    name = session_index("anywhere")
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def _clone_environment(clone: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != DATASETS_DIR_ENV_VAR and not k.startswith("BIOHYBRID")}
    return {
        **env,
        "PYTHONPATH": str(clone),
        "BIOHYBRID_CONFIG": str(clone / "control_plane" / "config" / "local.yaml"),
        "BIOHYBRID__MODELS__ENCODING_CACHE_DIR": str(REPOSITORY_ROOT / ".local" / "encodings"),
    }


def test_the_clone_runs_its_own_code_and_finds_the_demo_corpus_in_itself(clone: Path) -> None:
    probe = subprocess.run(
        [sys.executable, "-m", "control_plane.cli.main", "datasets", "list"],
        capture_output=True,
        text=True,
        cwd=clone,
        env=_clone_environment(clone),
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    lines = probe.stdout.splitlines()
    assert lines[0].startswith(f"looked for in: {clone / 'datasets'}")
    assert f"  pmc             {clone / 'datasets' / 'pmc'}" in lines
    assert f"  clinicaltrials  {clone / 'datasets' / 'clinicaltrials'}" in lines


def test_make_runs_ingest_from_a_clone_with_nothing_beside_it(
    clone: Path, index: str, client: OpenSearch
) -> None:
    command = [
        sys.executable,
        "-m",
        "control_plane.cli.main",
        "--log-format",
        "json",
        "ingest",
        "pmc",
        "ctgov",
        "--index",
        index,
        "--no-progress",
    ]
    with demo_encoding_lock():
        run = subprocess.run(
            command, capture_output=True, text=True, cwd=clone, env=_clone_environment(clone), timeout=900
        )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    client.indices.refresh(index=index)
    records = {
        bucket["key"]
        for bucket in client.search(
            index=index,
            body={"size": 0, "aggs": {"records": {"terms": {"field": "doc_id", "size": 200}}}},
        )["aggregations"]["records"]["buckets"]
    }
    assert len(records) == 8 + 72  # every article and every trial, each trial once
    logged = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    assert not [entry for entry in logged if entry.get("level") in ("warning", "error")], logged
