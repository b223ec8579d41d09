"""The evaluate command: its parser and the command line the report states."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from control_plane.cli import evaluate
from control_plane.config.settings import load_settings


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="biohybrid")
    parser.add_argument("--config")
    evaluate.add_parsers(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_command_line_can_be_typed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BIOHYBRID_CONFIG", raising=False)
    argv = [
        "evaluate",
        "nfcorpus/dev",
        "--configurations",
        "bm25,hybrid-rrf+rerank",
        "--limit",
        "20",
        "--no-store",
    ]
    args = _parse(argv)
    assert args.handler is not None and args.out == Path(".local/evaluation")
    line = evaluate.command_line(args)
    assert (
        line
        == "biohybrid evaluate nfcorpus/dev --configurations bm25,hybrid-rrf+rerank --limit 20 --no-store"
    )
    assert evaluate.command_line(_parse(line.split()[1:])) == line


def test_command_line_names_the_settings_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIOHYBRID_CONFIG", "control_plane/config/local.yaml")
    args = _parse(["--config", "x.yaml", "evaluate", "nfcorpus/test", "--out", "/tmp/r", "--mark-baseline"])
    assert evaluate.command_line(args) == (
        "BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        "biohybrid --config x.yaml evaluate nfcorpus/test --out /tmp/r --mark-baseline"
    )


def test_bad_requests_exit_2_before_any_search(capsys: pytest.CaptureFixture[str]) -> None:
    settings = load_settings(environ={})
    args = _parse(["evaluate", "nfcorpus/dev", "--no-store", "--mark-baseline"])
    assert args.handler(settings, args) == 2
    assert "--mark-baseline needs the run stored" in capsys.readouterr().err
    args = _parse(["evaluate", "nfcorpus/dev", "--configurations", "bm25,colbert"])
    assert args.handler(settings, args) == 2
    assert "unknown configuration 'colbert'" in capsys.readouterr().err
    args = _parse(["evaluate", "nfcorpus/validation"])
    assert args.handler(settings, args) == 2
    assert "unknown test set id 'nfcorpus/validation'" in capsys.readouterr().err
