"""The searches of the run, over HTTP as a client sends them: one session (one kept-alive connection) per
client thread, a closed loop until the deadline, every failure recorded with its status and message."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import requests

from benchmarks.pipeline_load.compute import Call
from control_plane.cluster.client import opensearch_session
from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.query.components import text_hybrid_query

LEAN_SOURCE = {"excludes": ["embedding", "sparse_terms"]}
SIZE = 10
PIPELINE_PATHS = ("hybrid-minmax", "clinical-minmax", "clinical-minmax-rerank")
API_PATH = "api"
Sender = Callable[[str], Call]


@dataclass(frozen=True)
class Target:
    """Where the searches go: OpenSearch (settings) and index, the control API and its search key."""

    opensearch: OpenSearchSettings
    index: str
    api_url: str
    api_key: str


def body_for(path: str, text: str) -> dict[str, Any]:
    """What a client sends: the README's explicit hybrid query to ``hybrid-minmax``, a plain question to
    a clinical pipeline, the question to /v1/search."""
    if path == API_PATH:
        return {"query": text, "size": SIZE}
    if path == "hybrid-minmax":
        query = text_hybrid_query(text, pagination_depth=100)
    else:
        query = {"match": {"text": text}}
    return {"size": SIZE, "_source": LEAN_SOURCE, "query": query}


def sender(path: str, target: Target) -> Sender:
    """One client's call for ``path`` (its own session)."""
    if path == API_PATH:
        session = requests.Session()
        session.headers["X-API-Key"] = target.api_key
        url = f"{target.api_url.rstrip('/')}/v1/search"
    else:
        session = opensearch_session(target.opensearch)
        url = f"{target.opensearch.url.rstrip('/')}/{target.index}/_search?search_pipeline={path}"

    def send(text: str) -> Call:
        began = time.perf_counter()
        try:
            response = session.post(url, json=body_for(path, text), timeout=120)
        except requests.RequestException as exc:
            return Call(time.perf_counter() - began, 0, f"{type(exc).__name__}: {exc}")
        seconds = time.perf_counter() - began
        if response.status_code >= 400:
            return Call(seconds, response.status_code, _reason(response))
        return Call(seconds)

    return send


def _reason(response: requests.Response) -> str:
    try:
        error = response.json().get("error", response.text)
    except ValueError:
        return response.text[:300]
    if isinstance(error, dict):
        return str(error.get("reason") or error.get("message") or error)[:300]
    return str(error)[:300]


def closed_loop(
    make_sender: Callable[[], Sender], texts: Sequence[str], clients: int, seconds: float
) -> tuple[list[Call], float]:
    """Every call of ``clients`` threads that each send their next question as soon as the last answered,
    until ``seconds`` have passed (a call under way then is waited for), and the run's wall time."""
    senders = [make_sender() for _ in range(clients)]
    barrier = threading.Barrier(clients + 1)
    calls: list[Call] = []
    lock = threading.Lock()
    deadline = 0.0

    def work(number: int, send: Sender) -> None:
        questions = itertools.cycle([*texts[number * 7 % len(texts) :], *texts[: number * 7 % len(texts)]])
        barrier.wait()
        while time.perf_counter() < deadline:
            call = send(next(questions))
            with lock:
                calls.append(call)

    threads = [threading.Thread(target=work, args=(n, s), daemon=True) for n, s in enumerate(senders)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    deadline = began + seconds  # read by the clients once the barrier lets them go
    barrier.wait()
    for thread in threads:
        thread.join()
    return calls, time.perf_counter() - began
