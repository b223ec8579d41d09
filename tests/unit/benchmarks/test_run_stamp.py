"""The run context every new benchmark report starts with (lines checked by hand)."""

from __future__ import annotations

from benchmarks.run_stamp import RunStamp, finished_run


def test_the_header_lines() -> None:
    run = RunStamp("python -m x --out 'a b.md'", "vm, 2 CPU cores", "2026-11-23 20:00 UTC", 0.5, 1.25)
    assert run.lines() == [
        "- command: `python -m x --out 'a b.md'`",
        "- machine: vm, 2 CPU cores; 2026-11-23 20:00 UTC",
        "- 1-minute load average before / after: 0.50 / 1.25",
    ]


def test_a_finished_run_quotes_its_arguments() -> None:
    assert finished_run("python -m x", ["--out", "a b.md"], 0.5).command == "python -m x --out 'a b.md'"
