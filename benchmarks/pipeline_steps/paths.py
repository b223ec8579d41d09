"""From a client's request to its answer: the same questions sent, alternating, along paths that each add
one part of what a clinical pipeline does to the explicit hybrid query (a wider window fetched, the
rewrite's round trip, the response steps), so the difference between neighbours is that part's cost."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from opensearchpy import OpenSearch

from benchmarks.clinical_pipelines.measure import LEAN_SOURCE
from control_plane.clinical.pipeline import ROUTING_FIELDS
from control_plane.query.components import text_hybrid_query

PAGE: Final = 10
EXPLICIT_PAGE: Final = "explicit hybrid query, a page of 10"
EXPLICIT_WINDOW: Final = "explicit hybrid query, the routing window"
EXPLICIT_WINDOW_LEAN: Final = "explicit hybrid query, the routing window, routing fields only"
REWRITE_ONLY: Final = "plain question, rewrite only (no response steps)"
CLINICAL: Final = "plain question, the whole clinical pipeline"
CLINICAL_LEANER: Final = "plain question, the whole clinical pipeline, bulky stored fields excluded"
PATHS: Final = (EXPLICIT_PAGE, EXPLICIT_WINDOW, EXPLICIT_WINDOW_LEAN, REWRITE_ONLY, CLINICAL, CLINICAL_LEANER)
# Stored fields neither routing nor a RAG library's document reads, the largest of a chunk's _source after
# the vectors (facet_json alone was 1.7 KB of a 3.2 KB hit on chunks-clinical): what the window carries
# through every response step when a client leaves them in.
BULKY_FIELDS: Final = ("facet_json", "table_html", "table_lines", "provenance", "content_hash")
# What each step adds: (label, the path with it, the path without it).
PARTS: Final = (
    ("fetching the routing window instead of a page", EXPLICIT_WINDOW, EXPLICIT_PAGE),
    ("the window's text and other fields routing does not read", EXPLICIT_WINDOW, EXPLICIT_WINDOW_LEAN),
    ("the rewrite (request-side model call)", REWRITE_ONLY, EXPLICIT_WINDOW),
    ("the response steps (route, reorders, cut, page metadata)", CLINICAL, REWRITE_ONLY),
    ("all of it: the plain form over the explicit page", CLINICAL, EXPLICIT_PAGE),
    ("the bulky stored fields a client left in, through the clinical pipeline", CLINICAL, CLINICAL_LEANER),
)


@dataclass(frozen=True)
class Timed:
    """One answer: the client's round trip and OpenSearch's own ``took`` (milliseconds)."""

    round_trip_ms: float
    took_ms: float


@contextmanager
def rewrite_only(client: OpenSearch, pipeline: str, name: str) -> Iterator[str]:
    """A temporary copy of ``pipeline`` without its response steps (removed after): the rewrite and the
    fused window, nothing after fusion."""
    installed = client.search_pipeline.get(id=pipeline)[pipeline]
    body = {key: copy.deepcopy(value) for key, value in installed.items() if key != "response_processors"}
    body["description"] = f"temporary copy of {pipeline} without its response steps"
    client.search_pipeline.put(id=name, body=body)
    try:
        yield name
    finally:
        client.search_pipeline.delete(id=name, ignore=[404])


def path_bodies(text: str, window: int, depth: int) -> dict[str, tuple[str | None, dict[str, Any]]]:
    """Each path's (pipeline role, body) for one question; the role ``explicit`` is the hybrid pipeline,
    ``clinical`` the clinical one, ``rewrite`` its copy without response steps."""
    explicit = text_hybrid_query(text, pagination_depth=depth)
    plain = {"match": {"text": text}}
    return {
        EXPLICIT_PAGE: ("explicit", {"size": PAGE, "query": explicit, "_source": LEAN_SOURCE}),
        EXPLICIT_WINDOW: ("explicit", {"size": window, "query": explicit, "_source": LEAN_SOURCE}),
        EXPLICIT_WINDOW_LEAN: (
            "explicit",
            {"size": window, "query": explicit, "_source": {"includes": list(ROUTING_FIELDS)}},
        ),
        REWRITE_ONLY: ("rewrite", {"size": PAGE, "query": plain, "_source": LEAN_SOURCE}),
        CLINICAL: ("clinical", {"size": PAGE, "query": plain, "_source": LEAN_SOURCE}),
        CLINICAL_LEANER: (
            "clinical",
            {
                "size": PAGE,
                "query": plain,
                "_source": {"excludes": [*LEAN_SOURCE["excludes"], *BULKY_FIELDS]},
            },
        ),
    }


def timed_paths(
    client: OpenSearch,
    index: str,
    pipelines: Mapping[str, str],
    texts: Sequence[str],
    window: int,
    depth: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[Timed]]:
    """Every path per question, their order rotating question by question so that machine noise falls on
    all alike; the first question warms up and is not kept."""
    kept: dict[str, list[Timed]] = {path: [] for path in PATHS}
    for number, text in enumerate(texts):
        bodies = path_bodies(text, window, depth)
        order = PATHS[number % len(PATHS) :] + PATHS[: number % len(PATHS)]
        for path in order:
            role, body = bodies[path]
            began = clock()
            answer = client.search(index=index, params={"search_pipeline": pipelines[str(role)]}, body=body)
            elapsed = (clock() - began) * 1000
            if number > 0:
                kept[path].append(Timed(elapsed, float(answer["took"])))
    return kept
