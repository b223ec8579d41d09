"""The background step the ingest overlaps its bulk writes with: order, bounded hand-over, and failures
that reach the caller after the items before them finished."""

from __future__ import annotations

import threading
import time

import pytest

from control_plane.ingestion.overlap import OverlapClosedError, Overlapped


def test_results_come_back_in_submission_order() -> None:
    overlapped: Overlapped[int, int] = Overlapped(lambda n: n * n)
    finished = [pair for n in range(5) for pair in overlapped.submit(n)]
    finished += overlapped.close()
    assert finished == [(n, n * n) for n in range(5)]


def test_the_step_runs_while_the_caller_goes_on() -> None:
    release = threading.Event()
    started = threading.Event()

    def step(n: int) -> int:
        started.set()
        release.wait(5)
        return n

    overlapped: Overlapped[int, int] = Overlapped(step, depth=1)
    assert overlapped.submit(1) == []
    assert started.wait(5)  # item 1 is being written while this thread carries on
    assert overlapped.submit(2) == []  # one item may wait while one runs
    release.set()
    assert overlapped.close() == [(1, 1), (2, 2)]


def test_a_slow_step_makes_the_caller_wait_and_counts_it() -> None:
    overlapped: Overlapped[int, int] = Overlapped(lambda n: time.sleep(0.3) or n, depth=1)
    for n in range(3):
        overlapped.submit(n)
    overlapped.close()
    assert overlapped.wait_s >= 0.25


def test_a_failure_reaches_the_caller_after_the_items_before_it() -> None:
    def step(n: int) -> int:
        if n == 2:
            raise RuntimeError("bulk refused")
        return n

    overlapped: Overlapped[int, int] = Overlapped(step)
    done: list[tuple[int, int]] = []
    with pytest.raises(RuntimeError, match="bulk refused"):
        for n in range(10):
            done += overlapped.submit(n)
            time.sleep(0.05)
    with pytest.raises(RuntimeError, match="bulk refused"):
        overlapped.close()
    assert [n for n, _ in done] == [0, 1]


def test_no_submit_after_close() -> None:
    overlapped: Overlapped[int, int] = Overlapped(lambda n: n)
    overlapped.close()
    with pytest.raises(OverlapClosedError):
        overlapped.submit(1)
