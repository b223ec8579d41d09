"""Merge concurrent requests into model-sized batches, with a bounded queue that refuses instead of waiting.

One worker thread per model takes the oldest request. Alone (nothing else queued) it runs at once: a lone
query never pays the batching window. Otherwise the worker keeps taking requests for up to ``max_wait_s``
while the batch has room for them; under load requests pile up while the model computes, so batches form
without anyone waiting for them. A full queue raises :class:`OverloadedError` at once (the service
answers 503), and a caller never waits longer than its timeout: the service cannot hang.

A request whose caller gave up (timed out, or its connection closed: ``gone``) is shed: dropped from the
queue if it has not started, and between model calls (every ``chunk`` items) if it has, so an abandoned
rerank does not keep the cores from the requests behind it.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, cast

from control_plane.errors import UnavailableError

T = TypeVar("T")
R = TypeVar("R")
log = logging.getLogger(__name__)


class OverloadedError(UnavailableError, RuntimeError):
    """The model's queue is full."""


class BatchTimeoutError(UnavailableError, RuntimeError):
    """The request waited longer than its timeout for its batch."""


class CallerGoneError(BatchTimeoutError):
    """The caller's connection closed before its batch ran: its work was shed (nobody reads the answer)."""


class BatchObserver(Protocol):
    def observe_batch(self, model: str, size: int, seconds: float) -> None: ...

    def observe_shed(self, model: str, items: int) -> None: ...


def _never() -> bool:
    return False


@dataclass
class _Job(Generic[T, R]):
    items: list[T]
    future: Future[list[R]] = field(default_factory=Future)
    abandoned: bool = False  # the caller timed out while the job was running: skip what is left
    gone: Callable[[], bool] = _never  # the caller's connection closed (the server's own check)

    @property
    def dropped(self) -> bool:
        return self.abandoned or self.gone()


class MicroBatcher(Generic[T, R]):
    """Items are texts (encoders) or (query, passage) pairs (cross-encoders); ``fn`` maps a batch of them
    to one result each."""

    def __init__(
        self,
        name: str,
        fn: Callable[[list[T]], Sequence[R]],
        *,
        max_batch: int,
        max_wait_s: float,
        queue_size: int,
        observer: BatchObserver | None = None,
        chunk: int | None = None,
    ) -> None:
        self.name = name
        self._fn = fn
        self.max_batch = max_batch
        # items per model call (default max_batch); smaller means abandoned work is dropped sooner
        self.chunk = min(chunk or max_batch, max_batch)
        self.shed_items = 0
        self.max_wait_s = max_wait_s
        self._queue: queue.Queue[_Job[T, R] | None] = queue.Queue(maxsize=queue_size)
        self._observer = observer
        self._carry: _Job[T, R] | None = None
        self._stopping = False
        self._stalls: queue.SimpleQueue[float] = queue.SimpleQueue()  # the fault switch's slow model
        self._thread = threading.Thread(target=self._work, name=f"batcher-{name}", daemon=True)
        self._thread.start()

    @property
    def depth(self) -> int:
        """Requests waiting (not counting the batch being computed)."""
        return self._queue.qsize() + (1 if self._carry is not None else 0)

    def submit(self, items: list[T], timeout_s: float, gone: Callable[[], bool] | None = None) -> list[R]:
        """Results for ``items`` in order; raises OverloadedError or BatchTimeoutError instead of blocking.
        ``gone``: whether the caller has left (its work is then shed, as a timed-out caller's is)."""
        if self._stopping or not self._thread.is_alive():
            raise OverloadedError(f"model '{self.name}' is stopped")
        job: _Job[T, R] = _Job(items=list(items), gone=gone or _never)
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            raise OverloadedError(
                f"model '{self.name}' is overloaded ({self._queue.maxsize} requests queued)"
            ) from None
        try:
            return job.future.result(timeout=timeout_s)
        except CancelledError:  # the worker shed it: the caller left
            raise CallerGoneError(f"model '{self.name}': the caller left before its batch ran") from None
        except FutureTimeout:
            if not job.future.cancel():  # already running: the worker skips its remaining items
                job.abandoned = True
            raise BatchTimeoutError(f"model '{self.name}' did not answer within {timeout_s:g} s") from None

    def stall(self, seconds: float) -> None:
        """Make the model slow for real (the fault switch's ``delay_ms``): the worker sleeps ``seconds``
        before its next batch, so that batch and every request queued behind it wait as behind a slow
        model (timeouts, a full queue)."""
        if seconds > 0:
            self._stalls.put(seconds)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Let the worker finish the batch in hand, then end it (pending requests are failed)."""
        while True:
            try:
                self._queue.put(None, timeout=timeout_s)
                break
            except queue.Full:
                self._fail_pending(RuntimeError("service stopping"))
        self._thread.join(timeout_s)
        self._fail_pending(RuntimeError("service stopping"))

    def _fail_pending(self, error: Exception) -> None:
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                return
            if job is not None and job.future.set_running_or_notify_cancel():
                job.future.set_exception(error)

    def _next_batch(self) -> list[_Job[T, R]] | None:
        if self._carry is not None:
            first: _Job[T, R] | None = self._carry
            self._carry = None
        elif self._stopping:
            return None
        else:
            first = self._queue.get()
        if first is None:
            return None
        batch = [first]
        size = len(first.items)
        if self._queue.empty():
            return batch  # alone: no window to wait out
        deadline = time.monotonic() + self.max_wait_s
        while size < self.max_batch:
            remaining = deadline - time.monotonic()
            try:
                job = self._queue.get(timeout=remaining) if remaining > 0 else self._queue.get_nowait()
            except queue.Empty:
                break
            if job is None:
                self._stopping = True  # finish this batch (and any carried job), then stop
                break
            if size + len(job.items) > self.max_batch:
                self._carry = job
                break
            batch.append(job)
            size += len(job.items)
        return batch

    def _work(self) -> None:
        while (batch := self._next_batch()) is not None:
            live = []
            for job in batch:
                if job.gone():
                    job.future.cancel()  # its caller left while it waited
                if job.future.set_running_or_notify_cancel():
                    live.append(job)
                else:
                    self._shed(len(job.items))  # its caller timed out or left while it waited
            if live:
                self._run(live)

    def _run(self, jobs: list[_Job[T, R]]) -> None:
        while not self._stalls.empty():
            time.sleep(self._stalls.get_nowait())
        owners = [j for j, job in enumerate(jobs) for _ in job.items]
        items = [item for job in jobs for item in job.items]
        results: list[R | None] = [None] * len(items)
        try:
            for start in range(0, len(items), self.chunk):
                span = range(start, min(start + self.chunk, len(items)))
                wanted = [i for i in span if not jobs[owners[i]].dropped]
                self._shed(len(span) - len(wanted))
                if not wanted:
                    continue
                began = time.perf_counter()
                for i, result in zip(wanted, self._fn([items[i] for i in wanted]), strict=True):
                    results[i] = result
                if self._observer is not None:
                    self._observer.observe_batch(self.name, len(wanted), time.perf_counter() - began)
        except Exception as exc:  # one bad batch must not kill the worker: every caller gets the error
            log.exception("batch failed", extra={"model": self.name, "items": len(items)})
            for job in jobs:
                job.future.set_exception(exc)
            return
        offset = 0
        for job in jobs:
            mine = results[offset : offset + len(job.items)]
            offset += len(job.items)
            if job.dropped:
                job.future.set_exception(BatchTimeoutError(f"model '{self.name}': the caller gave up"))
            else:
                job.future.set_result(cast(list[R], mine))  # a live job's items were all computed

    def _shed(self, items: int) -> None:
        if items <= 0:
            return
        self.shed_items += items
        if self._observer is not None:
            self._observer.observe_shed(self.name, items)
        log.info("abandoned work shed", extra={"model": self.name, "items": items})
