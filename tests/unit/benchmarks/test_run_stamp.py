"""The run context every benchmark report starts with, and the opening built from it (lines checked by
hand)."""

from __future__ import annotations

import pytest

from benchmarks.run_stamp import RunStamp, finished_run, report_opening


def test_the_header_lines() -> None:
    run = RunStamp("python -m x --out 'a b.md'", "vm, 2 CPU cores", "2026-11-23 20:00 UTC", 0.5, 1.25)
    assert run.lines() == [
        "- command: `python -m x --out 'a b.md'`",
        "- machine: vm, 2 CPU cores; 2026-11-23 20:00 UTC",
        "- 1-minute load average before / after: 0.50 / 1.25",
    ]
    # A benchmark that timed itself states the duration beside the date.
    timed = RunStamp("python -m x", "vm", "2026-11-23 20:00 UTC", 0.5, 1.25, seconds=61.4)
    assert timed.lines()[1] == "- machine: vm; 2026-11-23 20:00 UTC; 61 s"
    # Every report opens with its title, the run's lines, its own header lines and a blank line.
    assert report_opening("X", run, ["- index `i`"]) == ["# X", "", *run.lines(), "- index `i`", ""]
    assert report_opening("X", run) == ["# X", "", *run.lines(), ""]


def test_a_finished_run_quotes_its_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BIOHYBRID_CONFIG", raising=False)
    run = finished_run("python -m x", ["--out", "a b.md"], 0.5)
    assert run.command == "python -m x --out 'a b.md'" and run.seconds is None
    assert finished_run("python -m x", [], 0.5, seconds=3.0, machine="vm").machine == "vm"
    # The settings file $BIOHYBRID_CONFIG chose is part of the command as typed.
    monkeypatch.setenv("BIOHYBRID_CONFIG", "control_plane/config/local.yaml")
    assert (
        finished_run("python -m x", ["--out", "r.md"], 0.5).command
        == "BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m x --out r.md"
    )
