"""The command line on a secured cluster: `biohybrid ingest` with tenants separated by index refuses
another tenant's index with exit 2 and a message naming the index, the tenant and the allowed names,
before any client or model is made (the cluster named here does not exist, and the source is never
read); a password file that cannot be read stops a command with exit 2 and the setting's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.cli.main import main


@pytest.fixture
def separated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BIOHYBRID_CONFIG", raising=False)
    monkeypatch.setenv("BIOHYBRID__INDEX__TENANT_INDICES", "true")
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__URL", "http://127.0.0.1:1")


@pytest.mark.usefixtures("separated")
def test_another_tenants_index_is_refused_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["--log-format", "text", "ingest", "no-such-source", "--tenant", "acme", "--index", "chunks-globex"]
    )
    assert code == 2
    error = capsys.readouterr().err
    assert "error: index 'chunks-globex' is not tenant 'acme''s" in error
    assert "'chunks-acme' or 'chunks-acme-<suffix>'" in error


@pytest.mark.usefixtures("separated")
def test_a_tenant_name_with_a_dash_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--log-format", "text", "ingest", "no-such-source", "--tenant", "acme-eu"]) == 2
    assert "tenant 'acme-eu' cannot name indices" in capsys.readouterr().err


def test_a_missing_password_file_stops_a_command_with_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.delenv("BIOHYBRID_CONFIG", raising=False)
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__URL", "https://127.0.0.1:1")
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__USERNAME", "biohybrid_control_plane")
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__PASSWORD_FILE", str(tmp_path / "missing"))
    assert main(["--log-format", "text", "status"]) == 2
    assert "error: opensearch.password_file" in capsys.readouterr().err
