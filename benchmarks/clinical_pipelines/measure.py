"""The three paths run against the stack, relevance per question, and the timed runs (client-side, one
client or several, each request as a client sends it)."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from opensearchpy import OpenSearch

from control_plane.measures.metrics import ndcg_at_k
from control_plane.query.components import text_hybrid_query
from control_plane.search.results import ChunkResult
from control_plane.search.service import SearchService
from control_plane.search.spec import SearchSpec
from control_plane.testsets.catalog import Query, load_test_set

K: Final = 10
LEAN_SOURCE: Final = {"excludes": ["embedding", "sparse_terms"]}
FUSIONS: Final = {"weighted": "minmax", "rrf": "rrf"}  # /v1/search's fusion -> the pipelines' suffix
Ranker = Callable[[str], list[str]]
OLD_README: Final = "(a0) README query, no pagination_depth"
README: Final = "(a) README query"
PIPELINE: Final = "(b) clinical pipeline"
API: Final = "(c) /v1/search, boosts on"


def plain_query(text: str) -> dict[str, Any]:
    """What a client sends a clinical pipeline."""
    return {"match": {"text": text}}


def direct(client: OpenSearch, index: str, pipeline: str, query: dict[str, Any], size: int = K) -> list[str]:
    body = {"size": size, "query": query, "_source": LEAN_SOURCE}
    answer = client.search(index=index, params={"search_pipeline": pipeline}, body=body)
    return [hit["_id"] for hit in answer["hits"]["hits"]]


def service_chunk_ids(service: SearchService, index: str, request: Mapping[str, Any]) -> list[str]:
    """The chunk ids /v1/search's service (tenant ``default``) answers a SearchSpec body with."""
    spec = SearchSpec.model_validate(request)
    return [r.chunk_id for r in service.search(spec, "default", index).results if isinstance(r, ChunkResult)]


def api_ranker(service: SearchService, index: str, fusion: str, boosts: bool) -> Ranker:
    """/v1/search's service (tenant ``default``) with clinical boosts on or off: its chunk ids."""

    def rank(text: str) -> list[str]:
        return service_chunk_ids(
            service, index, {"query": text, "size": K, "boosts": boosts, "fusion_method": fusion}
        )

    return rank


def judged_questions(split: str) -> tuple[tuple[Query, ...], Mapping[str, Mapping[str, int]]]:
    """A split's questions that have judgments, and its judgments."""
    test_set = load_test_set(split)
    qrels = test_set.qrels()
    return tuple(q for q in test_set.queries() if q.query_id in qrels), qrels


def rankers(
    client: OpenSearch, service: SearchService, index: str, fusion: str, depth: int
) -> dict[str, Ranker]:
    """The paths compared, by label, for one fusion."""
    suffix = FUSIONS[fusion]
    return {
        OLD_README: lambda t: direct(client, index, f"hybrid-{suffix}", text_hybrid_query(t)),
        README: lambda t: direct(
            client, index, f"hybrid-{suffix}", text_hybrid_query(t, pagination_depth=depth)
        ),
        PIPELINE: lambda t: direct(client, index, f"clinical-{suffix}", plain_query(t)),
        API: api_ranker(service, index, fusion, boosts=True),
    }


@dataclass(frozen=True)
class Relevance:
    """Mean nDCG@10 per path label over a split's judged questions."""

    split: str
    fusion: str
    questions: int
    ndcg: dict[str, float]


def relevance(split: str, fusion: str, paths: dict[str, Ranker]) -> Relevance:
    questions, qrels = judged_questions(split)
    means = {
        label: statistics.mean(ndcg_at_k(qrels[q.query_id], rank(q.text), K) for q in questions)
        for label, rank in paths.items()
    }
    return Relevance(split, fusion, len(questions), means)


def interleaved(calls: dict[str, Callable[[str], object]], texts: Sequence[str]) -> dict[str, list[float]]:
    """Milliseconds per call, the paths alternating question by question (their order rotating), so
    machine noise falls on all alike; the first question warms up and is not counted."""
    timings: dict[str, list[float]] = {label: [] for label in calls}
    labels = list(calls)
    for number, text in enumerate(texts):
        order = labels[number % len(labels) :] + labels[: number % len(labels)]
        for label in order:
            began = time.perf_counter()
            calls[label](text)
            if number > 0:
                timings[label].append((time.perf_counter() - began) * 1000)
    return timings


def concurrent_run(
    make_call: Callable[[], Callable[[str], object]], texts: Sequence[str], clients: int
) -> float:
    """Seconds for ``clients`` threads (each with its own connection) to send every text once each."""
    calls = [make_call() for _ in range(clients)]
    barrier = threading.Barrier(clients + 1)
    failures: list[BaseException] = []

    def work(call: Callable[[str], object]) -> None:
        barrier.wait()
        try:
            for text in texts:
                call(text)
        except BaseException as exc:  # reported after the run, never silently dropped
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    barrier.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError(f"{len(failures)} client(s) failed: {failures[0]!r}")
    return time.perf_counter() - began
