"""HTTP calls of the fair-use run: one search, a sequential run of ordinary questions, the abusive burst."""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field

OVERSIZED_WORDS = (
    "patients",
    "trial",
    "randomized",
    "dose",
    "adverse",
    "events",
    "breast",
    "cancer",
    "eligibility",
    "criteria",
    "inclusion",
    "exclusion",
    "outcome",
    "survival",
    "placebo",
)


@dataclass(frozen=True)
class Answer:
    status: int
    ms: float
    components: tuple[str, ...]
    retry_after_s: float
    component_errors: tuple[str, ...] = ()


def search(api: str, key: str, question: str) -> Answer:
    request = urllib.request.Request(
        f"{api.rstrip('/')}/v1/search",
        data=json.dumps({"query": question}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            status, body, retry = answer.status, json.loads(answer.read()), "0"
    except urllib.error.HTTPError as refused:
        status, body, retry = (
            refused.code,
            json.loads(refused.read()),
            refused.headers.get("Retry-After", "0"),
        )
    ms = (time.perf_counter() - started) * 1000
    meta = body.get("metadata", {}) if status == 200 else {}
    components = tuple(meta.get("components_used", ()))
    return Answer(status, ms, components, float(retry or 0), tuple(meta.get("component_errors", ())))


def ordinary_run(api: str, key: str, questions: list[str]) -> list[Answer]:
    return [search(api, key, question) for question in questions]


@dataclass
class Burst:
    """Threads sending oversized questions until stopped (or ``limit`` each), honouring Retry-After."""

    api: str
    key: str
    threads: int
    limit: int
    chars: int = 2000  # each question's length
    statuses: Counter[int] = field(default_factory=Counter)
    _stop: threading.Event = field(default_factory=threading.Event)
    _workers: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        self._workers = [threading.Thread(target=self._send, args=(seed,)) for seed in range(self.threads)]
        for worker in self._workers:
            worker.start()

    def stop(self) -> None:
        self._stop.set()
        for worker in self._workers:
            worker.join(300)

    def _send(self, seed: int) -> None:
        draw = random.Random(seed)
        for _ in range(self.limit):
            if self._stop.is_set():
                return
            question = " ".join(draw.choice(OVERSIZED_WORDS) for _ in range(400))[: self.chars]
            answer = search(self.api, self.key, question)
            with self._lock:
                self.statuses[answer.status] += 1
            if answer.status == 429:
                self._stop.wait(answer.retry_after_s)
