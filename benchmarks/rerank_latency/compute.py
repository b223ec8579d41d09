"""Rerank latency measured: per query one first-stage search, then one rerank call per depth (depths in
rotating order), timed client-side one request at a time; and their P50/P95."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import requests
from opensearchpy import OpenSearch

from control_plane.formulas.percentile import percentile
from control_plane.query.components import text_hybrid_query


@dataclass(frozen=True)
class Timings:
    """Milliseconds per counted query (the first, a warm-up, is not): the search, and each depth's call."""

    depths: tuple[int, ...]
    search_ms: tuple[float, ...]
    rerank_ms: dict[int, tuple[float, ...]]


@dataclass(frozen=True)
class Latency:
    """A step's sample count and P50/P95 in ms (None when it has no sample)."""

    n: int
    p50: float | None
    p95: float | None


@dataclass(frozen=True)
class Summary:
    search: Latency
    rerank: tuple[tuple[int, Latency], ...]  # (depth, its call's latency), depths in the order given


def measure(
    client: OpenSearch,
    session: requests.Session,
    url: str,
    index: str,
    pipeline: str,
    queries: Sequence[str],
    depths: Sequence[int],
    model_weight: float,
) -> Timings:
    """Time every query's search and its rerank call at each depth, with the blend the rerank connector
    sends (``model_weight``; no budget, so nothing is shed)."""
    search_ms: list[float] = []
    rerank_ms: dict[int, list[float]] = {d: [] for d in depths}
    for number, text in enumerate(queries):
        body = {"size": max(depths), "_source": ["text"], "query": text_hybrid_query(text)}
        began = time.perf_counter()
        hits = client.search(index=index, params={"search_pipeline": pipeline}, body=body)["hits"]["hits"]
        searched = (time.perf_counter() - began) * 1000
        texts = [h["_source"]["text"] for h in hits]
        order = [*depths[number % len(depths) :], *depths[: number % len(depths)]]
        for depth in order:
            payload = {"query": text, "documents": texts, "depth": depth, "model_weight": model_weight}
            began = time.perf_counter()
            session.post(url, json=payload, timeout=120).raise_for_status()
            if number > 0:  # the first query warms up
                rerank_ms[depth].append((time.perf_counter() - began) * 1000)
        if number > 0:
            search_ms.append(searched)
    return Timings(tuple(depths), tuple(search_ms), {d: tuple(values) for d, values in rerank_ms.items()})


def latency(values: Sequence[float]) -> Latency:
    if not values:
        return Latency(0, None, None)
    return Latency(len(values), percentile(values, 50), percentile(values, 95))


def summarize(timings: Timings) -> Summary:
    return Summary(
        latency(timings.search_ms), tuple((d, latency(timings.rerank_ms[d])) for d in timings.depths)
    )
