"""What every benchmark report starts with: its title, then the run (the command as typed, the machine, the
date, how long it took where the benchmark timed itself, and the load average before and after, so a reader
can tell a quiet run from a shared one), then the benchmark's own header lines."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from control_plane.config.settings import ENV_CONFIG_FILE
from control_plane.reports.machine import describe_machine


@dataclass(frozen=True)
class RunStamp:
    command: str
    machine: str
    date: str
    load_before: float
    load_after: float
    seconds: float | None = None  # how long the run took, where the benchmark timed it

    def lines(self) -> list[str]:
        """The report's command, machine and load lines (markdown list items)."""
        took = "" if self.seconds is None else f"; {self.seconds:.0f} s"
        return [
            f"- command: `{self.command}`",
            f"- machine: {self.machine}; {self.date}{took}",
            f"- 1-minute load average before / after: {self.load_before:.2f} / {self.load_after:.2f}",
        ]


def finished_run(
    prog: str,
    argv: Sequence[str] | None,
    load_before: float,
    *,
    seconds: float | None = None,
    machine: str | None = None,
) -> RunStamp:
    """The context of a run that ends now (``argv`` None: the process's own arguments). The command names
    the settings file when ``$BIOHYBRID_CONFIG`` chose it; ``seconds``: how long the run took, for a
    benchmark that timed itself; ``machine``: a benchmark's own description of it (default: host, OS,
    CPU cores and Python)."""
    arguments = list(argv) if argv is not None else sys.argv[1:]
    config = os.environ.get(ENV_CONFIG_FILE)
    prefix = f"{ENV_CONFIG_FILE}={shlex.quote(config)} " if config else ""
    return RunStamp(
        command=f"{prefix}{prog} {shlex.join(arguments)}",
        machine=describe_machine() if machine is None else machine,
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        load_before=load_before,
        load_after=os.getloadavg()[0],
        seconds=seconds,
    )


def report_opening(title: str, run: RunStamp, extra: Sequence[str] = ()) -> list[str]:
    """The lines every report starts with: ``# title``, a blank line, the run's lines, the benchmark's own
    header lines (``extra``, markdown list items), a blank line."""
    return [f"# {title}", "", *run.lines(), *extra, ""]
