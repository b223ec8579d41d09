"""`biohybrid service start --dense/--sparse/--rerank`: the background service serves the models asked for
and no others, and a start that asks for models where a service already runs is refused, not ignored."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from integration.service import free_port

from control_plane.cli.main import main
from control_plane.inference.process import stop_service


def test_start_serves_the_models_asked_for_and_refuses_them_where_one_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port, state = str(free_port()), str(tmp_path / "inference")
    asked = ["--dense", "minilm", "--sparse", "splade-tiny", "--rerank", "ce-minilm"]
    try:
        assert main(["service", "start", "--port", port, "--state-dir", state, *asked]) == 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=10) as answer:
            served = {m["name"]: m["role"] for m in json.load(answer)["models"]}
        assert served == {"minilm": "dense", "splade-tiny": "sparse", "ce-minilm": "rerank"}
        capsys.readouterr()
        again = ["service", "start", "--port", port, "--state-dir", state, "--rerank", "ce-bge-small"]
        assert main(again) == 2
        assert "already runs" in capsys.readouterr().err
        assert main(["service", "start", "--port", port, "--state-dir", state]) == 0  # plain start reuses it
        assert "already running" in capsys.readouterr().out
    finally:
        stop_service(Path(state))
