"""The stages of an ingest run and who hears about them: ``prepare`` (the index exists, each record's most
complete form chosen), ``load`` (parse, chunk, encode and bulk-index every batch) and ``refresh`` (the
new chunks become searchable and are committed: control_plane/ingestion/commit.py). A listener (the
lifecycle events, control_plane/events/ingest_stages.py) hears each stage start, complete with its
counts, or fail with a reason; ingest itself knows no sink."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final, Protocol

PREPARE: Final = "prepare"
LOAD: Final = "load"
REFRESH: Final = "refresh"
STAGES: Final = (PREPARE, LOAD, REFRESH)


class StageListener(Protocol):
    def started(self, stage: str) -> None: ...

    def completed(self, stage: str, counts: Mapping[str, Any]) -> None: ...

    def failed(self, stage: str, reason: str, error: str) -> None: ...


class NoStages:
    """The listener when nobody listens."""

    def started(self, stage: str) -> None:
        return None

    def completed(self, stage: str, counts: Mapping[str, Any]) -> None:
        return None

    def failed(self, stage: str, reason: str, error: str) -> None:
        return None


def failure_reason(exc: BaseException) -> str:
    """A failure in one word: a model call's reason (gpu_unavailable, circuit_open...), else ``error``."""
    reason = getattr(exc, "reason", None)
    return reason if isinstance(reason, str) else "error"


@contextmanager
def stage(
    listener: StageListener, name: str, counts: Callable[[], Mapping[str, Any]] = dict
) -> Iterator[None]:
    """Tell ``listener`` the stage started, then that it completed with ``counts()`` or failed (the
    exception goes on)."""
    listener.started(name)
    try:
        yield
    except Exception as exc:
        listener.failed(name, failure_reason(exc), f"{type(exc).__name__}: {exc}"[:500])
        raise
    listener.completed(name, counts())
