"""The services' start-up boundary (issue 49 item 2): an expected failure is one line naming the cause and
the fix and a non-zero exit, the traceback only with --debug. Each is caused for real: a port held by a
real socket, a model the manifest does not have, model files that are not there, a node that refuses
connections."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from unit.api.unreachable import closed_port_url

from control_plane.api.__main__ import main as api_main
from control_plane.cli.main import main as cli_main
from control_plane.inference.cli import main as inference_main
from control_plane.logs import ClientTracebackFilter
from control_plane.models.manifest import MODELS_HOME_ENV_VAR
from control_plane.serving import ListenError, check_listenable


@pytest.fixture
def held_port() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as holder:
        yield int(holder.getsockname()[1])


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    return lines[0]


def test_a_held_port_is_named_with_the_fix(held_port: int) -> None:
    with pytest.raises(ListenError) as raised:
        check_listenable("127.0.0.1", held_port)
    assert str(raised.value).startswith(f"cannot listen on 127.0.0.1:{held_port}: port {held_port} is in use")
    assert "--port" in str(raised.value)


def test_the_inference_service_refuses_a_held_port_before_loading_anything(
    held_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert inference_main(["--port", str(held_port), "--log-format", "text"]) == 2
    line = _one_error_line(capsys)
    assert f"port {held_port} is in use" in line


def test_the_inference_service_names_an_unknown_model_and_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert inference_main(["--port", "0", "--dense", "nosuch", "--log-format", "text"]) == 2
    line = _one_error_line(capsys)
    assert line.startswith("error: model 'nosuch' is not in ") and "(known: bge-small, " in line


def test_the_inference_service_refuses_a_model_of_another_role(capsys: pytest.CaptureFixture[str]) -> None:
    assert inference_main(["--port", "0", "--dense", "splade-tiny", "--log-format", "text"]) == 2
    assert (
        _one_error_line(capsys)
        == "error: model 'splade-tiny' is a sparse model, not dense (--dense splade-tiny)"
    )


def test_the_inference_service_says_how_to_get_missing_model_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(MODELS_HOME_ENV_VAR, str(tmp_path))  # a models home holding nothing
    assert inference_main(["--port", "0", "--log-format", "text"]) == 2
    line = _one_error_line(capsys)
    assert "is missing model.onnx" in line and str(tmp_path) in line
    assert "`biohybrid models fetch`" in line or "rebuild with `" in line


def test_the_inference_service_shows_the_traceback_with_debug(held_port: int) -> None:
    with pytest.raises(ListenError):
        inference_main(["--port", str(held_port), "--debug", "--log-format", "text"])


def test_the_api_refuses_a_held_port(
    held_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A node that is not there: the API may start before it, and says so.
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__URL", closed_port_url())
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__TIMEOUT_S", "2")
    assert api_main(["--port", str(held_port), "--log-format", "text"]) == 2
    assert f"port {held_port} is in use" in _one_error_line(capsys)


def test_a_node_that_refuses_connections_is_one_line_without_the_clients_tracebacks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__URL", "http://127.0.0.1:9")
    monkeypatch.setenv("BIOHYBRID__OPENSEARCH__TIMEOUT_S", "2")
    assert cli_main(["status"]) == 3
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: cannot reach OpenSearch at http://127.0.0.1:9; start the local node with `make run` (or "
        "ansible-playbook ansible/site.yml) or set opensearch.url"
    ]


def test_a_client_librarys_warning_keeps_its_error_and_loses_its_traceback() -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    handler.addFilter(ClientTracebackFilter())
    logger = logging.getLogger("opensearch")
    logger.addHandler(handler)
    try:  # opensearch-py logs each refused attempt with its traceback: cause one for real
        OpenSearch("http://127.0.0.1:9", max_retries=0, timeout=2).info()
    except OpenSearchConnectionError:
        pass
    finally:
        logger.removeHandler(handler)
    assert records, "opensearch-py logged nothing for a refused connection"
    assert all(record.exc_info is None for record in records)
    assert any("Connection refused" in getattr(record, "error", "") for record in records)
