"""Progress for long commands: tqdm's bar on a terminal; elsewhere (a log file, CI, `make run` piped) one
plain line every ``every_s`` seconds and one at the end, never a line (or a carriage return) per update.

The clock is injectable, so the cadence is tested without waiting.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO

# Seconds between two lines written to something that is not a terminal.
EVERY_S = 10.0


class Progress(Protocol):
    """The part of tqdm's interface the project uses."""

    def update(self, n: int = 1) -> Any: ...

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None: ...

    def set_postfix(self, ordered_dict: Any = None, refresh: bool = True, **values: Any) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> Progress: ...

    def __exit__(self, *_: Any) -> Any: ...


def progress_bar(
    *,
    total: int | None = None,
    desc: str = "",
    unit: str = "it",
    disable: bool = False,
    file: TextIO | None = None,
    every_s: float = EVERY_S,
    clock: Callable[[], float] = time.monotonic,
) -> Progress:
    """A bar for ``file`` (stderr by default): tqdm when it is a terminal, else ``LineProgress``."""
    stream = file if file is not None else sys.stderr
    if disable or _is_terminal(stream):
        from tqdm import tqdm

        bar: Progress = tqdm(
            total=total, desc=desc, unit=unit, disable=disable, file=stream, dynamic_ncols=True
        )
        return bar
    return LineProgress(stream, total=total, desc=desc, unit=unit, every_s=every_s, clock=clock)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


class LineProgress:
    """Writes ``desc: n/total unit (rate/s) key=value ...`` when ``every_s`` passed since the last line,
    and once more on ``close`` (if anything changed since)."""

    def __init__(
        self,
        stream: TextIO,
        *,
        total: int | None,
        desc: str,
        unit: str,
        every_s: float,
        clock: Callable[[], float],
    ) -> None:
        self.stream = stream
        self.total = total
        self.desc = desc
        self.unit = unit
        self.every_s = every_s
        self.clock = clock
        self.n = 0
        self.postfix = ""
        self._started = self._last = clock()
        self._written_n: int | None = None
        self._closed = False

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.clock() - self._last >= self.every_s:
            self._write()

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc or ""

    def set_postfix(self, ordered_dict: Any = None, refresh: bool = True, **values: Any) -> None:
        items = {**dict(ordered_dict or {}), **values}
        self.postfix = " ".join(f"{key}={value}" for key, value in items.items())

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._written_n != self.n:
            self._write()

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def line(self) -> str:
        """The line as it would be written now."""
        elapsed = self.clock() - self._started
        done = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        rate = f" ({self.n / elapsed:.1f} {self.unit}/s)" if elapsed > 0 else ""
        text = f"{self.desc}: {done} {self.unit}{rate}" if self.desc else f"{done} {self.unit}{rate}"
        return f"{text} {self.postfix}".rstrip()

    def _write(self) -> None:
        self.stream.write(self.line() + "\n")
        self.stream.flush()
        self._last = self.clock()
        self._written_n = self.n
