"""Send each query twice (whole _source, lean _source; order alternating) and keep bytes and milliseconds."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import requests

from control_plane.formulas.percentile import percentile
from control_plane.query.components import text_search_body

FORMS = ("whole", "lean")


@dataclass(frozen=True)
class Answer:
    form: str
    bytes: int
    ms: float
    hits: int


@dataclass(frozen=True)
class FormSummary:
    form: str
    answers: int
    median_bytes: float
    median_bytes_per_hit: float
    p50_ms: float
    p95_ms: float


def body(text: str, size: int, form: str) -> dict[str, Any]:
    """The README's direct query; the lean form leaves the vectors out of _source."""
    lean = text_search_body(text, size)
    return lean if form == "lean" else {k: v for k, v in lean.items() if k != "_source"}


def measure(
    session: requests.Session, url: str, index: str, pipeline: str, queries: Sequence[str], size: int
) -> list[Answer]:
    answers: list[Answer] = []
    endpoint = f"{url.rstrip('/')}/{index}/_search?search_pipeline={pipeline}"
    for number, text in enumerate(queries):
        forms = FORMS if number % 2 == 0 else tuple(reversed(FORMS))
        for form in forms:
            payload = json.dumps(body(text, size, form))
            started = time.perf_counter()
            response = session.post(endpoint, data=payload, headers={"Content-Type": "application/json"})
            content = response.content
            elapsed = (time.perf_counter() - started) * 1000
            response.raise_for_status()
            hits = len(json.loads(content)["hits"]["hits"])
            answers.append(Answer(form, len(content), elapsed, hits))
    return answers


def summarise(answers: Sequence[Answer]) -> list[FormSummary]:
    out = []
    for form in FORMS:
        mine = [a for a in answers if a.form == form]
        if not mine:
            continue
        out.append(
            FormSummary(
                form=form,
                answers=len(mine),
                median_bytes=percentile([a.bytes for a in mine], 50, method="linear"),
                median_bytes_per_hit=percentile(
                    [a.bytes / max(a.hits, 1) for a in mine], 50, method="linear"
                ),
                p50_ms=percentile([a.ms for a in mine], 50),
                p95_ms=percentile([a.ms for a in mine], 95),
            )
        )
    return out
