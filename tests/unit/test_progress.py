"""Progress written to something that is not a terminal: a line every few seconds and one at the end,
never one per update (a clock under the test's control, a stream that is no tty)."""

from __future__ import annotations

import io

from control_plane.progress import LineProgress, progress_bar


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_updates_between_lines_write_nothing_and_the_end_writes_one() -> None:
    clock, stream = Clock(), io.StringIO()
    bar = progress_bar(total=1000, desc="evaluate", unit="query", file=stream, every_s=10, clock=clock)
    assert isinstance(bar, LineProgress)
    for _ in range(500):  # 500 updates within 5 s
        clock.now += 0.01
        bar.update(1)
    assert stream.getvalue() == ""
    clock.now += 5.0
    bar.update(1)  # 10 s since the start: one line
    bar.set_postfix(chunks=270, rate="10/s")
    for _ in range(100):
        bar.update(1)
    bar.close()
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines == [
        "evaluate: 501/1000 query (50.1 query/s)",
        "evaluate: 601/1000 query (60.1 query/s) chunks=270 rate=10/s",
    ]
    assert "\r" not in stream.getvalue()


def test_a_line_every_interval_at_most() -> None:
    clock, stream = Clock(), io.StringIO()
    with progress_bar(desc="ingest -> chunks-demo", unit="doc", file=stream, every_s=5, clock=clock) as bar:
        for _ in range(60):  # 60 updates, one a second
            clock.now += 1.0
            bar.update(1)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 12  # at 5, 10, ..., 60 s; the end adds none (nothing changed since)
    assert lines[-1] == "ingest -> chunks-demo: 60 doc (1.0 doc/s)"


def test_a_terminal_gets_tqdms_bar_and_disabled_writes_nothing() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert not isinstance(progress_bar(total=3, file=Terminal()), LineProgress)
    stream = io.StringIO()
    bar = progress_bar(total=3, file=stream, disable=True)
    bar.update(3)
    bar.close()
    assert stream.getvalue() == ""
