"""What every new benchmark report starts with: the command as typed, the machine, the date, and the load
average before and after (so a reader can tell a quiet run from a shared one)."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from control_plane.evaluation.report import describe_machine


@dataclass(frozen=True)
class RunStamp:
    command: str
    machine: str
    date: str
    load_before: float
    load_after: float

    def lines(self) -> list[str]:
        """The report's command, machine and load lines (markdown list items)."""
        return [
            f"- command: `{self.command}`",
            f"- machine: {self.machine}; {self.date}",
            f"- 1-minute load average before / after: {self.load_before:.2f} / {self.load_after:.2f}",
        ]


def finished_run(prog: str, argv: Sequence[str] | None, load_before: float) -> RunStamp:
    """The context of a run that ends now (``argv`` None: the process's own arguments)."""
    arguments = list(argv) if argv is not None else sys.argv[1:]
    return RunStamp(
        command=f"{prog} {shlex.join(arguments)}",
        machine=describe_machine(),
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        load_before=load_before,
        load_after=os.getloadavg()[0],
    )
