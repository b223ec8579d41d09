"""`make run` prints each phase's wall time as it ends, marks the first demo answer and ends with the
table of them all; a failing phase stops it with its exit status. Run on a copy of the Makefile whose
virtual environment holds stubs (nothing is provisioned, started or contacted)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from control_plane.locations import REPOSITORY_ROOT

PHASES = (
    "pip: .venv + models fetch (make setup)",
    "provision: node + inference service (make node-up service-up)",
    "templates and pipelines (biohybrid apply)",
    "model registration (biohybrid models register)",
    "drift check (biohybrid verify)",
    "demo ingest (biohybrid ingest)",
    "control API (make api-up)",
    "status (biohybrid status)",
    "example queries (make demo)",
)


def _stubbed(tmp_path: Path, failing: str = "") -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPOSITORY_ROOT / name, tmp_path / name)
    (tmp_path / "ansible").mkdir()
    bin_dir = tmp_path / ".fv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("biohybrid", "ansible-playbook", "pip"):
        stub = bin_dir / tool
        fail = f'[[ "$*" == *"{failing}"* ]] && exit 3\n' if failing else ""
        stub.write_text(f'#!/bin/bash\necho "[stub] {tool} $*"\n{fail}exit 0\n')
        stub.chmod(0o755)
    installed = bin_dir / ".installed"
    installed.touch()
    stamp = (tmp_path / "pyproject.toml").stat().st_mtime + 10
    os.utime(installed, (stamp, stamp))
    return tmp_path


def _make_run(folder: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "RUN_T0"))}
    return subprocess.run(
        ["make", "run", "VENV=.fv"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_every_phase_is_timed_and_the_first_answer_marked(tmp_path: Path) -> None:
    done = _make_run(_stubbed(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    table = done.stdout.split("=== make run: phase wall times\n")[1].splitlines()
    names = [line[:64].strip() for line in table]
    assert names[: len(PHASES) + 2] == [*PHASES[:-1], "first demo answer", PHASES[-1], "total"]
    assert (tmp_path / ".local" / "make-run-phases.txt").read_text().count("\n") == len(PHASES) + 1
    for phase in PHASES:
        assert f"=== done: {phase}" in done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_failing_phase_stops_make_run_with_no_table(tmp_path: Path) -> None:
    done = _make_run(_stubbed(tmp_path, failing="verify"))
    assert done.returncode != 0
    assert "=== done: model registration" in done.stdout and "=== done: drift check" not in done.stdout
    assert "phase wall times" not in done.stdout
