"""An expected failure of the CLI is one line naming the cause and the fix, and a non-zero exit; the
traceback only with --debug (issue 49 item 2). Caused for real: a datasets folder that is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.cli.main import main
from control_plane.datasets import locate
from control_plane.datasets.locate import DATASETS_DIR_ENV_VAR, DatasetsNotFoundError


def test_a_datasets_folder_that_is_not_there_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(DATASETS_DIR_ENV_VAR, str(tmp_path / "nowhere"))
    assert main(["ingest", "nfcorpus", "--index", "chunks-probe", "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        f"error: {DATASETS_DIR_ENV_VAR}={tmp_path / 'nowhere'} is not a folder; point it at the "
        "folder holding pmc/, clinicaltrials/, medline/, nfcorpus/ or scifact/, or unset it"
    ]


def test_a_corpus_found_nowhere_names_the_fetch_command_and_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(DATASETS_DIR_ENV_VAR, raising=False)
    monkeypatch.setattr(locate, "REPOSITORY_DATASETS", tmp_path / "repository")
    monkeypatch.setattr(locate, "SHARED_DATASETS", tmp_path / "shared")
    assert main(["ingest", "scifact", "--index", "chunks-probe", "--no-progress"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: dataset scifact/ not found (looked in ")
    assert "`biohybrid datasets fetch scifact`" in line and f"set {DATASETS_DIR_ENV_VAR}" in line


def test_debug_shows_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATASETS_DIR_ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(DatasetsNotFoundError):
        main(["--debug", "ingest", "nfcorpus", "--index", "chunks-probe", "--no-progress"])
