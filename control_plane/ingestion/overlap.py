"""One background thread that runs a step over submitted items in order, so the caller prepares the next
item meanwhile: the ingest encodes batch N+1 (CPU) while batch N is written (OpenSearch's time).

At most ``depth`` items wait, so memory stays bounded and a slow writer slows the producer down (the
time it waits is counted: ``wait_s``). An exception in the step stops the thread; the caller gets it
from its next ``submit`` or from ``close``, which always waits for the items already handed over, so
nothing submitted before a failure is silently dropped.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Final, Generic, TypeVar

from control_plane.errors import BiohybridError

Item = TypeVar("Item")
Result = TypeVar("Result")
_POLL_S: Final = 0.2


class OverlapClosedError(BiohybridError):
    """An item was submitted after ``close``."""


class _Stop:
    pass


_STOP: Final = _Stop()


class Overlapped(Generic[Item, Result]):
    def __init__(self, step: Callable[[Item], Result], depth: int = 1, name: str = "overlap") -> None:
        if depth < 1:
            raise ValueError("depth must be at least 1")
        self._step = step
        self._waiting: queue.Queue[Item | _Stop] = queue.Queue(maxsize=depth)
        self._finished: queue.Queue[tuple[Item, Result]] = queue.Queue()
        self._error: BaseException | None = None
        self._closed = False
        self.wait_s = 0.0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, item: Item) -> list[tuple[Item, Result]]:
        """Hand ``item`` over (waiting while ``depth`` items wait); returns the items finished so far
        with their results, in submission order. Raises the step's exception if it failed."""
        if self._closed:
            raise OverlapClosedError("submit after close")
        started = time.monotonic()
        while True:
            self._raise_if_failed()
            try:
                self._waiting.put(item, timeout=_POLL_S)
                break
            except queue.Full:
                continue
        self.wait_s += time.monotonic() - started
        return self._drain()

    def close(self) -> list[tuple[Item, Result]]:
        """Wait for every submitted item; returns the ones not yet returned. Raises the step's exception
        (after the items before it finished)."""
        if not self._closed:
            self._closed = True
            started = time.monotonic()
            while self._thread.is_alive():
                try:
                    self._waiting.put(_STOP, timeout=_POLL_S)
                    break
                except queue.Full:
                    continue
            self._thread.join()
            self.wait_s += time.monotonic() - started
        finished = self._drain()
        self._raise_if_failed()
        return finished

    def _run(self) -> None:
        while True:
            item = self._waiting.get()
            if isinstance(item, _Stop):
                return
            try:
                self._finished.put((item, self._step(item)))
            except BaseException as exc:  # handed to the caller, who decides
                self._error = exc
                return

    def _drain(self) -> list[tuple[Item, Result]]:
        finished: list[tuple[Item, Result]] = []
        while True:
            try:
                finished.append(self._finished.get_nowait())
            except queue.Empty:
                return finished

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error
