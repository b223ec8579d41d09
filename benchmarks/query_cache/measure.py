"""The APIs under test (one process per mode) and the timed requests: the same sequence to every mode,
interleaved, each request timed client-side from sending it to having its whole answer."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from tqdm import tqdm

from control_plane import background
from control_plane.errors import BiohybridError
from control_plane.testsets.catalog import Query

READY_TIMEOUT_S = 90.0
_CACHE = "BIOHYBRID__SEARCH__CACHE__"
MODES: dict[str, dict[str, str]] = {
    "off": {f"{_CACHE}ENCODING__ENABLED": "false", f"{_CACHE}RESPONSE__ENABLED": "false"},
    "encoding": {f"{_CACHE}ENCODING__ENABLED": "true", f"{_CACHE}RESPONSE__ENABLED": "false"},
    "on": {f"{_CACHE}ENCODING__ENABLED": "true", f"{_CACHE}RESPONSE__ENABLED": "true"},
}


class BenchmarkError(BiohybridError, RuntimeError):
    """The stack cannot be benchmarked as asked; the message says what to do."""


@dataclass(frozen=True)
class Sample:
    mode: str
    position: int
    query_id: str
    repeat: bool
    ms: float | None
    error: str | None = None
    response_cache: str = "off"
    encoding_hits: int = 0
    encoding_lookups: int = 0
    state_ms: float | None = None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _environment(changes: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` with ``changes`` while a child process is started (it inherits them)."""
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def running_apis(
    modes: Sequence[str], config: str, environment: Mapping[str, str], state_root: Path
) -> Iterator[dict[str, str]]:
    """One fresh control API per mode ({mode: url}); each is stopped on the way out."""
    started: list[Path] = []
    urls: dict[str, str] = {}
    try:
        for mode in modes:
            state_dir = state_root / mode
            port = _free_port()
            with _environment({**environment, **MODES[mode]}):
                url, fresh = background.start(
                    "control_plane.api", port, state_dir, READY_TIMEOUT_S, extra_args=("--config", config)
                )
            started.append(state_dir)
            if not fresh:
                raise BenchmarkError(f"port {port} already had an API: run again")
            urls[mode] = url
        yield urls
    finally:
        for state_dir in started:
            background.stop(state_dir)


def rotated(items: Sequence[str], shift: int) -> list[str]:
    cut = shift % len(items)
    return [*items[cut:], *items[:cut]]


def time_search(
    session: requests.Session, url: str, key: str, body: Mapping[str, Any], timeout_s: float
) -> tuple[float | None, dict[str, Any] | None, str | None]:
    """(ms, answer, error) of one POST /v1/search; the body is encoded before the clock starts."""
    payload = json.dumps(body).encode()
    headers = {"X-API-Key": key, "Content-Type": "application/json"}
    started = time.perf_counter()
    try:
        response = session.post(f"{url}/v1/search", data=payload, headers=headers, timeout=timeout_s)
        content = response.content
    except requests.RequestException as exc:
        return None, None, type(exc).__name__
    ms = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        return None, None, f"HTTP {response.status_code}: {content[:200]!r}"
    return ms, json.loads(content), None


def sample_of(
    mode: str, position: int, query: Query, repeat: bool, timed: tuple[float | None, Any, str | None]
) -> Sample:
    ms, answer, error = timed
    if answer is None:
        return Sample(mode, position, query.query_id, repeat, None, error)
    meta = answer["metadata"]
    cache = meta.get("cache", {})
    encodings = cache.get("encodings", {})
    degraded = meta.get("component_errors") or []
    return Sample(
        mode,
        position,
        query.query_id,
        repeat,
        ms,
        error=f"degraded: {','.join(degraded)}" if degraded else None,
        response_cache=str(cache.get("response", "off")),
        encoding_hits=sum(1 for status in encodings.values() if status == "hit"),
        encoding_lookups=sum(1 for status in encodings.values() if status != "off"),
        state_ms=cache.get("state_ms"),
    )


def run_sequence(
    urls: Mapping[str, str],
    key: str,
    queries: Sequence[Query],
    repeats: Sequence[bool],
    size: int,
    timeout_s: float,
    label: str,
    progress: bool,
) -> list[Sample]:
    """Every query to every mode, the mode order rotating per request."""
    sessions = {mode: requests.Session() for mode in urls}
    modes = list(urls)
    samples: list[Sample] = []
    for position, (query, repeat) in enumerate(
        tqdm(list(zip(queries, repeats, strict=True)), desc=label, disable=not progress)
    ):
        body = {"query": query.text, "size": size}
        for mode in rotated(modes, position):
            timed = time_search(sessions[mode], urls[mode], key, body, timeout_s)
            samples.append(sample_of(mode, position, query, repeat, timed))
    return samples


def cache_metrics(url: str) -> dict[str, float]:
    """The API's retrieve_cache_* series, by ``name{cache}``, for the report's cross-check."""
    text = requests.get(f"{url}/metrics", timeout=10).text
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("retrieve_cache_"):
            name, _, value = line.rpartition(" ")
            found[name] = float(value)
    return found
