"""`biohybrid status --next-steps` (what `make run` prints last): what runs where, read from the settings
in use, and the commands to try next; it needs no node."""

from __future__ import annotations

import pytest

from control_plane.cli.main import main
from control_plane.cli.resources import next_steps
from control_plane.config.settings import load_settings


def test_the_addresses_come_from_the_settings() -> None:
    settings = load_settings()
    moved = settings.model_copy(update={"api": settings.api.model_copy(update={"port": 8999})})
    text = "\n".join(next_steps(moved))
    assert settings.opensearch.url in text and settings.models.service_url in text
    assert ":8999" in text and "biohybrid query" in text
    assert "http://127.0.0.1:8999/console" in text


def test_it_prints_without_a_node(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--next-steps"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("running") and "next" in out
