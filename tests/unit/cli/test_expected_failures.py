"""An expected failure of the CLI is one line naming the cause and the fix, and a non-zero exit; the
traceback only with --debug (issue 49 item 2). Caused for real: a datasets folder that is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.cli.main import main
from control_plane.datasets_root import DATASETS_DIR_ENV_VAR, DatasetsNotFoundError


def test_a_missing_datasets_folder_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(DATASETS_DIR_ENV_VAR, str(tmp_path / "nowhere"))
    assert main(["ingest", "nfcorpus", "--index", "chunks-probe", "--no-progress"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: datasets folder") and DATASETS_DIR_ENV_VAR in lines[0]


def test_debug_shows_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATASETS_DIR_ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(DatasetsNotFoundError):
        main(["--debug", "ingest", "nfcorpus", "--index", "chunks-probe", "--no-progress"])
