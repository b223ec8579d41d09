from pathlib import Path

import pytest

from control_plane.cli.main import build_parser, main


@pytest.mark.parametrize(
    "command",
    [
        "apply",
        "verify",
        "status",
        "models",
        "ingest",
        "query",
        "search",
        "evaluate",
        "service",
        "api",
        "intents",
    ],
)
def test_every_command_explains_itself(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([command, "--help"])
    assert exit_info.value.code == 0
    assert len(capsys.readouterr().out.splitlines()) > 3


def test_bad_configuration_exits_2_naming_the_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIOHYBRID__INDEX__KNN__ENGINE", "nmslib")
    assert main(["status"]) == 2
    assert "index.knn.engine" in capsys.readouterr().err


def test_unreachable_cluster_exits_3_with_a_hint(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__TIMEOUT_S", "2")
    assert main(["status"]) == 3
    assert "cannot reach OpenSearch at http://127.0.0.1:9" in capsys.readouterr().err


def test_ingest_refuses_a_source_that_is_not_there_before_it_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    absent = tmp_path / "absent-folder"
    assert main(["ingest", str(absent), "--index", "chunks-default"]) == 2
    err = capsys.readouterr().err
    assert str(absent) in err and "dataset ids: pmc" in err


def test_service_model_options_go_with_start_only(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["service", "stop", "--state-dir", str(tmp_path), "--rerank", "ce-minilm"]) == 2
    assert "--dense, --sparse and --rerank go with start" in capsys.readouterr().err
