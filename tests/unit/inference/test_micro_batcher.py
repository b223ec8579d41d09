"""The batching queue: merging, order, bounded waiting, overload, errors, stop.

The batched function is plain Python (text lengths), and a threading.Event holds the worker busy so the
queue's state is known exactly when the assertions run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from control_plane.inference.batching import (
    BatchTimeoutError,
    CallerGoneError,
    MicroBatcher,
    OverloadedError,
)


class Recorder:
    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.shed: list[int] = []

    def observe_batch(self, model: str, size: int, seconds: float) -> None:
        self.sizes.append(size)

    def observe_shed(self, model: str, items: int) -> None:
        self.shed.append(items)


class Gate:
    """A batch function that blocks on its first call until released (and remembers what it saw)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.seen: list[str] = []

    def __call__(self, texts: list[str]) -> list[int]:
        self.seen.extend(texts)
        if not self.entered.is_set():
            self.entered.set()
            assert self.release.wait(5)
        return [len(t) for t in texts]


@pytest.fixture
def gate() -> Iterator[Gate]:
    g = Gate()
    yield g
    g.release.set()


def _batcher(
    fn: Gate, recorder: Recorder, *, max_batch: int = 8, queue_size: int = 8, chunk: int | None = None
) -> MicroBatcher[str, int]:
    return MicroBatcher(
        "m", fn, max_batch=max_batch, max_wait_s=0.2, queue_size=queue_size, observer=recorder, chunk=chunk
    )


def test_results_come_back_in_order_per_request() -> None:
    batcher = MicroBatcher(
        "m", lambda texts: [len(t) for t in texts], max_batch=4, max_wait_s=0, queue_size=2
    )
    assert batcher.submit(["a", "bbb", "cc"], timeout_s=5) == [1, 3, 2]
    batcher.stop()


def test_a_lone_request_does_not_wait_out_the_batching_window() -> None:
    batcher = MicroBatcher(
        "m", lambda texts: [len(t) for t in texts], max_batch=4, max_wait_s=30, queue_size=2
    )
    assert batcher.submit(["abc"], timeout_s=5) == [3]  # waiting the 30 s window would time out
    batcher.stop()


def test_requests_waiting_together_are_merged_into_one_batch(gate: Gate) -> None:
    recorder = Recorder()
    batcher = _batcher(gate, recorder)
    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(batcher.submit, ["x"], 5)
        assert gate.entered.wait(5)  # the worker is busy with the first request
        rest = [pool.submit(batcher.submit, ["y" * n], 5) for n in (2, 3, 4)]
        while batcher.depth < 3:
            time.sleep(0.005)
        gate.release.set()
        assert first.result() == [1]
        assert [f.result() for f in rest] == [[2], [3], [4]]
    assert recorder.sizes == [1, 3]
    batcher.stop()


def test_a_request_that_would_overflow_the_batch_waits_for_the_next(gate: Gate) -> None:
    recorder = Recorder()
    batcher = _batcher(gate, recorder, max_batch=3)
    with ThreadPoolExecutor(3) as pool:
        first = pool.submit(batcher.submit, ["x"], 5)
        assert gate.entered.wait(5)
        a = pool.submit(batcher.submit, ["aa", "aa"], 5)
        while batcher.depth < 1:
            time.sleep(0.005)
        b = pool.submit(batcher.submit, ["bbb", "bbb"], 5)
        while batcher.depth < 2:
            time.sleep(0.005)
        gate.release.set()
        assert (first.result(), a.result(), b.result()) == ([1], [2, 2], [3, 3])
    assert recorder.sizes == [1, 2, 2]
    batcher.stop()


def test_one_request_larger_than_a_batch_is_split_into_model_calls() -> None:
    recorder = Recorder()
    batcher = MicroBatcher(
        "m", lambda texts: [len(t) for t in texts], max_batch=2, max_wait_s=0, queue_size=1, observer=recorder
    )
    assert batcher.submit(["a", "bb", "ccc", "dddd", "e"], timeout_s=5) == [1, 2, 3, 4, 1]
    assert recorder.sizes == [2, 2, 1]
    batcher.stop()


def test_a_full_queue_refuses_at_once(gate: Gate) -> None:
    batcher = _batcher(gate, Recorder(), queue_size=1)
    with ThreadPoolExecutor(2) as pool:
        busy = pool.submit(batcher.submit, ["x"], 5)
        assert gate.entered.wait(5)
        queued = pool.submit(batcher.submit, ["y"], 5)
        while batcher.depth < 1:
            time.sleep(0.005)
        started = time.monotonic()
        with pytest.raises(OverloadedError, match="'m' is overloaded"):
            batcher.submit(["z"], timeout_s=5)
        assert time.monotonic() - started < 1  # "at once": far below the 5 s it would wait if it queued
        gate.release.set()
        assert busy.result() == [1] and queued.result() == [1]
    batcher.stop()


def test_a_request_never_waits_past_its_timeout(gate: Gate) -> None:
    batcher = _batcher(gate, Recorder())
    with ThreadPoolExecutor(1) as pool:
        busy = pool.submit(batcher.submit, ["x"], 5)
        assert gate.entered.wait(5)
        started = time.monotonic()
        with pytest.raises(BatchTimeoutError, match=r"within 0\.2 s"):
            batcher.submit(["late"], timeout_s=0.2)
        assert time.monotonic() - started < 1
        gate.release.set()
        assert busy.result() == [1]
    batcher.stop()


def test_a_request_that_timed_out_in_the_queue_is_never_computed(gate: Gate) -> None:
    recorder = Recorder()
    batcher = _batcher(gate, recorder)
    with ThreadPoolExecutor(1) as pool:
        busy = pool.submit(batcher.submit, ["x"], 5)
        assert gate.entered.wait(5)
        with pytest.raises(BatchTimeoutError):
            batcher.submit(["abandoned", "too"], timeout_s=0.1)
        gate.release.set()
        assert busy.result() == [1]
    assert batcher.submit(["after"], timeout_s=5) == [5]
    assert gate.seen == ["x", "after"] and recorder.shed == [2] and batcher.shed_items == 2
    batcher.stop()


def test_a_running_request_whose_caller_gave_up_is_shed_between_chunks(gate: Gate) -> None:
    """A rerank abandoned mid-way: the chunk in hand finishes, the rest is never scored, and the
    request behind it starts at once."""
    recorder = Recorder()
    batcher = _batcher(gate, recorder, max_batch=6, chunk=2)  # a full batch starts without waiting
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(batcher.submit, ["p1", "p2", "p3", "p4", "p5", "p6"], 1.0)
        assert gate.entered.wait(5)  # its first chunk is in the model, held there by the gate
        with pytest.raises(BatchTimeoutError, match=r"within 1 s"):
            running.result()  # the caller gives up while the gate still holds the first chunk
    gate.release.set()
    assert batcher.submit(["next"], timeout_s=5) == [4]
    assert gate.seen == ["p1", "p2", "next"]
    assert recorder.sizes == [2, 1] and recorder.shed == [2, 2] and batcher.shed_items == 4
    batcher.stop()


def test_a_queued_request_whose_caller_left_is_never_computed(gate: Gate) -> None:
    """The server says the caller's connection closed (``gone``) while its request waited: shed, and
    the waiting caller (the server's thread) is told so instead of getting a result nobody reads."""
    recorder = Recorder()
    batcher = _batcher(gate, recorder)
    left = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        busy = pool.submit(batcher.submit, ["x"], 5)
        assert gate.entered.wait(5)
        waiting = pool.submit(batcher.submit, ["left", "behind"], 5, left.is_set)
        time.sleep(0.05)  # queued behind the gate
        left.set()
        gate.release.set()
        assert busy.result() == [1]
        with pytest.raises(CallerGoneError, match="the caller left"):
            waiting.result()
    assert batcher.submit(["after"], timeout_s=5) == [5]
    assert gate.seen == ["x", "after"] and recorder.shed == [2] and batcher.shed_items == 2
    batcher.stop()


def test_a_running_request_whose_caller_left_is_shed_between_chunks(gate: Gate) -> None:
    """As a timed-out caller's: the chunk in hand finishes, the rest is never scored."""
    recorder = Recorder()
    batcher = _batcher(gate, recorder, max_batch=6, chunk=2)
    left = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(batcher.submit, ["p1", "p2", "p3", "p4", "p5", "p6"], 5, left.is_set)
        assert gate.entered.wait(5)  # its first chunk is in the model
        left.set()
        gate.release.set()
        with pytest.raises(BatchTimeoutError, match="the caller gave up"):
            running.result()
    assert gate.seen == ["p1", "p2"] and recorder.sizes == [2] and recorder.shed == [2, 2]
    assert batcher.submit(["next"], timeout_s=5) == [4]
    batcher.stop()


def test_chunks_split_a_batch_without_changing_results() -> None:
    batcher = MicroBatcher(
        "m", lambda texts: [len(t) for t in texts], max_batch=8, max_wait_s=0, queue_size=1, chunk=3
    )
    assert batcher.submit(["a", "bb", "ccc", "dddd", "e"], timeout_s=5) == [1, 2, 3, 4, 1]
    batcher.stop()


def test_a_failing_batch_fails_its_requests_and_the_worker_goes_on() -> None:
    def fn(texts: list[str]) -> list[int]:
        if "boom" in texts:
            raise ValueError("model exploded")
        return [len(t) for t in texts]

    batcher = MicroBatcher("m", fn, max_batch=4, max_wait_s=0, queue_size=2)
    with pytest.raises(ValueError, match="model exploded"):
        batcher.submit(["boom"], timeout_s=5)
    assert batcher.submit(["fine"], timeout_s=5) == [4]
    batcher.stop()


def test_stop_ends_the_worker() -> None:
    batcher = MicroBatcher("m", lambda texts: [0] * len(texts), max_batch=2, max_wait_s=0, queue_size=2)
    batcher.stop()
    with pytest.raises(OverloadedError, match="'m' is stopped"):
        batcher.submit(["after stop"], timeout_s=5)
