"""Callers of the inference service kept apart. Each names itself in ``X-Biohybrid-Caller`` (the control
API ``api``, ingestion ``ingest``, OpenSearch's connectors ``opensearch``; a request without it is
``unnamed``) and may hold at most its share of the request threads in progress, so one caller's flood (a
burst of clinical-pipeline searches sent to OpenSearch directly, a large ingest) always leaves threads
for the others; past its share a caller gets 429 with Retry-After. The names are the services', not end
users': OpenSearch's connectors cannot forward who sent a search, so end users are kept apart upstream
(the control API's per-key limits, OpenSearch's own security)."""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from typing import Final

from control_plane.inference.validation import RequestError
from control_plane.serving import CALLER_HEADER

UNNAMED: Final = "unnamed"
KNOWN: Final = frozenset({"api", "ingest", "opensearch", UNNAMED})
"""The callers the project's own clients name (metric labels: any other name counts as ``other``)."""
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


def caller_name(header: str | None) -> str:
    """The caller a request names, or a 400 saying what a name may be."""
    if not header:
        return UNNAMED
    if not _NAME.fullmatch(header):
        raise RequestError(
            400,
            f"{CALLER_HEADER} {header[:40]!r} is not a caller name: 1 to 32 lower-case letters, digits "
            "and '-', starting with a letter or digit (or leave the header out)",
        )
    return header


def metric_label(caller: str) -> str:
    """A caller as a metric label: a header must not mint series."""
    return caller if caller in KNOWN else "other"


def caller_limit(http_threads: int, share: float) -> int:
    """Requests one caller may have in progress: its share of the threads, at least one."""
    return max(1, math.floor(http_threads * share))


@dataclass
class CallerLimiter:
    """Counts each caller's requests in progress; ``enter`` refuses one past ``limit``."""

    limit: int
    _in_progress: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def enter(self, caller: str) -> bool:
        """Count one request of ``caller`` in, or return False when it already has ``limit``."""
        with self._lock:
            held = self._in_progress.get(caller, 0)
            if held >= self.limit:
                return False
            self._in_progress[caller] = held + 1
            return True

    def leave(self, caller: str) -> None:
        with self._lock:
            held = self._in_progress.get(caller, 0) - 1
            if held > 0:
                self._in_progress[caller] = held
            else:
                self._in_progress.pop(caller, None)  # a caller with nothing in progress costs nothing

    def in_progress(self, caller: str) -> int:
        with self._lock:
            return self._in_progress.get(caller, 0)
