"""Searches whose caller left, cancelled inside OpenSearch. The servers see a caller close its connection
(waitress' ``client_disconnected``), and /v1/search stops before each of its OpenSearch calls; this covers
the call already sent: every search of a watched request carries an ``X-Opaque-Id``, which OpenSearch
records on its search task and the task's shard-level children, and one background thread asks each
watched request's check every ``poll_s``. When its caller has gone, the thread finds the request's search
task by that id (``_tasks``) and cancels it, which cancels its shard tasks: the node stops scoring a
search nobody will read, and the API's call returns (its error becomes a 499, CallerGoneError).

The thread asks OpenSearch nothing while no watched caller has left; a cancellation that finds no task
yet (the search not yet registered, or already done) is asked again at the next poll while the request
is watched. A node that refuses the cancellation (a security role without ``cluster:admin/tasks/cancel``)
is logged once per search, and the search then runs to its end as before."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from opensearchpy import OpenSearch
from opensearchpy.exceptions import OpenSearchException, TransportError

from control_plane.errors import CallerGoneError

log = logging.getLogger(__name__)
OPAQUE_ID_HEADER: Final = "X-Opaque-Id"
SEARCH_ACTIONS: Final = "indices:data/read/search*"
_TASKS_TIMEOUT_S: Final = 2.0


@dataclass(frozen=True)
class WatchedCaller:
    """What one request's searches send (``headers``: its opaque id) and whether its caller has left."""

    headers: Mapping[str, str] = field(default_factory=dict)
    gone: Callable[[], bool] | None = None

    def left(self) -> bool:
        return self.gone is not None and self.gone()

    def stop_if_left(self, stage: str) -> None:
        """Raise CallerGoneError when the caller has left (a search's failure then is its cancellation)."""
        if self.left():
            log.info("search abandoned: the caller left", extra={"stage": stage})
            raise CallerGoneError(f"the caller closed its connection {stage}; the search stopped there")

    def search(self, client: OpenSearch, **kwargs: Any) -> dict[str, Any]:
        """``client.search`` sent with this caller's headers; failing after the caller left, it was
        cancelled for that: CallerGoneError (a 499, never retried), not a failed search."""
        try:
            answer: dict[str, Any] = client.search(headers=dict(self.headers), **kwargs)
            return answer
        except TransportError:  # timeouts and connection errors included
            self.stop_if_left("during the search")
            raise


UNWATCHED: Final = WatchedCaller()


def search_task_ids(tasks: Mapping[str, Any], opaque_id: str) -> list[str]:
    """The top-level search tasks (``node:id``) a ``_tasks?detailed`` answer lists under ``opaque_id``:
    cancelling a parent cancels its shard-level children, which carry the same header."""
    return [
        task_id
        for node in tasks.get("nodes", {}).values()
        for task_id, task in node.get("tasks", {}).items()
        if task.get("headers", {}).get(OPAQUE_ID_HEADER) == opaque_id and "parent_task_id" not in task
    ]


@dataclass
class AbandonedSearches:
    """Cancels the OpenSearch search tasks of watched requests whose caller has left."""

    client: OpenSearch
    poll_s: float = 0.1
    _watched: dict[str, Callable[[], bool]] = field(default_factory=dict)
    _done: set[str] = field(default_factory=set)  # cancelled, or refused: not asked again
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _thread: threading.Thread | None = None

    @contextmanager
    def watching(self, gone: Callable[[], bool] | None) -> Iterator[WatchedCaller]:
        """Watch one request while inside; yields what its searches send. No check (``gone`` None, a
        server that cannot tell): nothing is watched and nothing is sent."""
        if gone is None:
            yield UNWATCHED
            return
        opaque_id = f"biohybrid-{uuid.uuid4().hex}"
        with self._changed:
            self._watched[opaque_id] = gone
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="abandoned-searches", daemon=True)
                self._thread.start()
            self._changed.notify()
        try:
            yield WatchedCaller({OPAQUE_ID_HEADER: opaque_id}, gone)
        finally:
            with self._changed:
                self._watched.pop(opaque_id, None)
                self._done.discard(opaque_id)

    def cancel(self, opaque_id: str) -> int:
        """Cancel the search tasks sent under ``opaque_id``; how many were found."""
        params = {"actions": SEARCH_ACTIONS, "detailed": "true", "request_timeout": _TASKS_TIMEOUT_S}
        found = search_task_ids(self.client.tasks.list(params=params), opaque_id)
        for task_id in found:
            self.client.tasks.cancel(task_id=task_id, params={"request_timeout": _TASKS_TIMEOUT_S})
        return len(found)

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._watched:
                    self._changed.wait()
                pending = [(i, gone) for i, gone in self._watched.items() if i not in self._done]
            for opaque_id, gone in pending:
                if _asked(gone):
                    self._cancel_once(opaque_id)
            time.sleep(self.poll_s)

    def _cancel_once(self, opaque_id: str) -> None:
        try:
            cancelled = self.cancel(opaque_id)
        except OpenSearchException as exc:  # refused (no permission) or the node unreachable: give up
            log.warning("a search whose caller left could not be cancelled", extra={"error": str(exc)[:300]})
        else:
            if not cancelled:
                return  # not registered yet, or already done: asked again at the next poll
            log.info("search cancelled in OpenSearch: its caller left", extra={"tasks": cancelled})
        with self._changed:
            if opaque_id in self._watched:
                self._done.add(opaque_id)


def _asked(gone: Callable[[], bool]) -> bool:
    try:
        return gone()
    except Exception:  # a server's check that fails says nothing about the caller
        return False
