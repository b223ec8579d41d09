"""An expected failure of the CLI is one line naming the cause and the fix, and a non-zero exit; the
traceback only with --debug (issue 49 item 2). Caused for real: a datasets folder that is not there;
the line for a model OpenSearch cannot reach is read from the answer OpenSearch gave when it happened."""

from __future__ import annotations

from pathlib import Path

import pytest
from opensearchpy.exceptions import TransportError

from control_plane.cli.main import main, refusal_line
from control_plane.config.settings import load_settings
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


# What OpenSearch 3.6.0 answered `biohybrid query ... --pipeline clinical-minmax` with the inference
# service stopped (the make run stack, 2026-11-28): ml-commons could not reach the route model.
_REMOTE_MODEL_DOWN = {
    "error": {
        "root_cause": [
            {
                "type": "status_exception",
                "reason": "Error communicating with remote model: Connection refused: /127.0.0.1:8501",
            }
        ],
        "type": "status_exception",
        "reason": "Error communicating with remote model: Connection refused: /127.0.0.1:8501",
    },
    "status": 500,
}


def test_a_model_opensearch_cannot_reach_names_the_inference_service_and_how_to_start_it() -> None:
    settings = load_settings()
    refused = TransportError(500, "status_exception", _REMOTE_MODEL_DOWN)
    assert refusal_line(refused, settings) == (
        f"OpenSearch could not reach the models it calls (the inference service at "
        f"{settings.models.service_url}): start it with `make service-up` (or `biohybrid service start`); "
        "OpenSearch said: Error communicating with remote model: Connection refused: /127.0.0.1:8501"
    )
    other = TransportError(400, "parsing_exception", {"error": {"reason": "unknown query [matchh]"}})
    assert refusal_line(other, settings).startswith("OpenSearch refused the request: ")
