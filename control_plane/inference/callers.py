"""Callers of the inference service kept apart. Each names itself in ``X-Biohybrid-Caller`` (the control
API ``api``, ingestion ``ingest``, OpenSearch's connectors ``opensearch``; a request without it is
``unnamed``) and may hold at most its share of the request threads in progress, so one caller's flood (a
burst of clinical-pipeline searches sent to OpenSearch directly, a large ingest) always leaves threads
for the others; past its share a caller gets 429 with Retry-After. The names are the services', not end
users': OpenSearch's connectors cannot forward who sent a search, so end users are kept apart upstream
(the control API's per-key limits, OpenSearch's own security). A caller may also have a rate (requests
per second with a burst, ``--caller-rate``); by default only callers the project does not configure have
one (``unnamed`` and every other name, which share one ``other`` allowance: a name costs nothing to mint,
so it buys no second share). A project caller's name is believed only with the caller token
(``Authorization: Bearer``, control_plane/serving.py ``caller_token``; OpenSearch's connectors hold it as
an ml-commons credential): claimed without it, the request is counted as ``other``, so a forged header
gains nothing."""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from control_plane.formulas.token_bucket import refilled, wait_for_token
from control_plane.inference.validation import RequestError
from control_plane.serving import CALLER_HEADER

UNNAMED: Final = "unnamed"
PROJECT: Final = frozenset({"api", "ingest", "opensearch"})
"""The callers that must prove their name with the caller token."""
KNOWN: Final = PROJECT | {UNNAMED}
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


OTHER: Final = "other"


def metric_label(caller: str) -> str:
    """A caller as a metric label and as the one its limits are counted by: a header must not mint
    series, nor a second share of the threads or of a rate."""
    return caller if caller in KNOWN else OTHER


def verified_caller(caller: str, proven: bool) -> str:
    """The caller a request is counted as: a project caller's name stands only when ``proven`` (it sent
    the caller token); claimed without it, the request is one of ``other``."""
    return OTHER if caller in PROJECT and not proven else caller


@dataclass(frozen=True)
class CallerRate:
    """Requests per second one caller may send on average, and how many at once above that."""

    per_s: float
    burst: int

    def __post_init__(self) -> None:
        if not (math.isfinite(self.per_s) and self.per_s > 0) or self.burst < 1:
            raise ValueError(f"a caller's rate needs per_s > 0 and burst ≥ 1, got {self.per_s}/{self.burst}")


DEFAULT_RATES: Final = {UNNAMED: CallerRate(20.0, 40), OTHER: CallerRate(20.0, 40)}
"""The callers the project's clients never are have a rate; ``api``, ``ingest`` and ``opensearch`` have
none by default: a rate on ``opensearch`` caps every pipeline search of every client together, so an
operator sets one from the capacity measured on the machine (the control API limits each key upstream)."""


def parse_rate(text: str) -> tuple[str, CallerRate | None]:
    """``NAME=PER_S[:BURST]`` (the burst twice the rate unless given) or ``NAME=off``: --caller-rate."""
    name, sep, value = text.partition("=")
    if not sep or name not in {*KNOWN, OTHER}:
        raise ValueError(
            f"--caller-rate {text!r}: write NAME=PER_S[:BURST] or NAME=off, NAME one of "
            f"{sorted({*KNOWN, OTHER})}"
        )
    if value == "off":
        return name, None
    per_s, _, burst = value.partition(":")
    try:
        rate = float(per_s)
        twice = max(1, math.ceil(2 * rate)) if math.isfinite(rate) else 1
        return name, CallerRate(rate, int(burst) if burst else twice)
    except ValueError as exc:
        raise ValueError(f"--caller-rate {text!r}: {exc}") from None


@dataclass
class CallerRates:
    """Each rated caller's token bucket; ``take`` answers how long to wait when it holds no token. The
    clock is injectable, so the arithmetic is tested without waiting."""

    rates: dict[str, CallerRate]
    clock: Callable[[], float] = time.monotonic
    _levels: dict[str, tuple[float, float]] = field(default_factory=dict)  # caller → (tokens, at)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, caller: str) -> float:
        """Take one of ``caller``'s tokens and return 0, or return the seconds until it has one."""
        rate = self.rates.get(caller)
        if rate is None:
            return 0.0
        now = self.clock()
        with self._lock:
            tokens, at = self._levels.get(caller, (float(rate.burst), now))
            tokens = refilled(tokens, at, now, rate.per_s, rate.burst)
            if tokens < 1.0:
                self._levels[caller] = (tokens, now)
                return wait_for_token(tokens, rate.per_s)
            self._levels[caller] = (tokens - 1.0, now)
            return 0.0


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
