"""Where events go. ``HttpSink``: structured-mode POSTs from a background thread fed by a bounded queue,
so a slow or dead receiver costs a search one ``put_nowait`` (a full queue drops, counted). ``JsonlSink``:
one JSON line per event appended to a file. A sink never raises into its caller."""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from pathlib import Path
from typing import Protocol

import requests
from cloudevents.core.v1.event import CloudEvent

from control_plane.events.building import structured, to_json_line
from control_plane.events.metrics import EventMetrics

log = logging.getLogger(__name__)


class EventSink(Protocol):
    def send(self, event: CloudEvent) -> None: ...

    def flush(self, timeout_s: float) -> bool: ...

    def close(self) -> None: ...


class HttpSink:
    """POSTs each event (``application/cloudevents+json``) to ``url``; a 2xx is delivered, anything else
    (a status, a timeout, a refused connection) is dropped as send_failed: events are telemetry, not
    records (the job ledger is the record)."""

    def __init__(
        self, url: str, timeout_s: float, queue_size: int, metrics: EventMetrics, drain_s: float = 30.0
    ) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.drain_s = drain_s
        self.metrics = metrics
        self._queue: queue.Queue[CloudEvent | None] = queue.Queue(maxsize=queue_size)
        self._session = requests.Session()
        self._closed = False
        self._thread = threading.Thread(target=self._drain, name="events-http-sink", daemon=True)
        self._thread.start()

    def send(self, event: CloudEvent) -> None:
        if self._closed:
            self.metrics.dropped.labels("closed").inc()
            return
        try:
            self._queue.put_nowait(event)
        except queue.Full:
            self.metrics.dropped.labels("queue_full").inc()

    def _drain(self) -> None:
        while True:
            event = self._queue.get()
            try:
                if event is None:
                    return
                self._post(event)
            finally:
                self._queue.task_done()

    def _post(self, event: CloudEvent) -> None:
        message = structured(event)
        try:
            answer = self._session.post(
                self.url, data=message.body, headers=message.headers, timeout=self.timeout_s
            )
        except requests.RequestException as exc:
            self.metrics.dropped.labels("send_failed").inc()
            log.warning(
                "event not delivered", extra={"url": self.url, "type": event.get_type(), "error": str(exc)}
            )
            return
        if 200 <= answer.status_code < 300:
            self.metrics.sent.labels(event.get_type()).inc()
            return
        self.metrics.dropped.labels("send_failed").inc()
        log.warning(
            "event refused", extra={"url": self.url, "type": event.get_type(), "status": answer.status_code}
        )

    def flush(self, timeout_s: float) -> bool:
        """Wait until every queued event was sent or dropped; False when ``timeout_s`` passed first."""
        deadline = time.monotonic() + timeout_s
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def close(self) -> None:
        """Stop taking events and send every accepted one before returning, ``drain_s`` at most: a process
        stopping (SIGTERM) closes its sink last, and its daemon sender thread dies with it. What is still
        queued after ``drain_s`` is logged as lost."""
        if self._closed:
            return
        self._closed = True
        deadline = time.monotonic() + self.drain_s
        with contextlib.suppress(queue.Full):  # the queue stayed full: the join below times out
            self._queue.put(None, timeout=self.drain_s)  # behind every accepted event
        self._thread.join(max(0.0, deadline - time.monotonic()))
        if self._thread.is_alive():
            left = max(0, self._queue.unfinished_tasks - 1)
            log.warning(
                "events not sent before the drain time ran out",
                extra={"url": self.url, "queued": left, "drain_s": self.drain_s},
            )
            return
        self._session.close()


class JsonlSink:
    """Appends one event per line to ``path`` (folders created); writes are serialised by a lock."""

    def __init__(self, path: Path, metrics: EventMetrics) -> None:
        self.path = path
        self.metrics = metrics
        self._lock = threading.Lock()

    def send(self, event: CloudEvent) -> None:
        line = to_json_line(event) + "\n"
        try:
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as out:
                    out.write(line)
        except OSError as exc:
            self.metrics.dropped.labels("send_failed").inc()
            log.warning("event not written", extra={"path": str(self.path), "error": str(exc)})
            return
        self.metrics.sent.labels(event.get_type()).inc()

    def flush(self, timeout_s: float) -> bool:
        return True

    def close(self) -> None:
        return None
