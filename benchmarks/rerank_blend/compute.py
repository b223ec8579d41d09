"""The rerank-blend grid's measurements and figures: one fused search and one rerank call per query, then
every (depth, weight) point as the pure blend of those scores, compared with the fused order."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import requests
from opensearchpy import OpenSearch

from control_plane.fusion.rerank_blend import blended_order, blended_scores
from control_plane.measures.metrics import Qrels, ndcg_at_k, recall_at_k
from control_plane.measures.significance import paired_randomization_test
from control_plane.query.components import text_hybrid_query
from control_plane.resilience.retry import retry_search


@dataclass(frozen=True)
class Candidates:
    """One query's fused chunks (best first) and the model's scores of the first ``len(scores)``."""

    query_id: str
    doc_ids: list[str]
    scores: list[float]


@dataclass(frozen=True)
class GridPoint:
    depth: int
    weight: float
    ndcg10: float
    recall100: float
    per_query: dict[str, float]


@dataclass(frozen=True)
class AgainstFused:
    """A grid point next to the fused ranking (weight 0): its nDCG@10 gain and the paired test's p."""

    point: GridPoint
    delta: float
    p_value: float


def fused_and_scored(
    client: OpenSearch,
    index: str,
    pipeline: str,
    session: requests.Session,
    rerank_url: str,
    text: str,
    size: int,
    scored: int,
) -> tuple[list[dict[str, Any]], list[float]]:
    """The pipeline's fused top ``size`` hits for the plain-text query (``doc_id`` and ``text`` in their
    _source) and the served model's raw scores of the first ``scored`` of them, from the endpoint
    OpenSearch's rerank processor calls."""
    body = {"size": size, "_source": ["doc_id", "text"], "query": text_hybrid_query(text)}
    fused = retry_search(
        lambda: client.search(index=index, params={"search_pipeline": pipeline}, body=body),
        what="rerank blend",
    )
    hits: list[dict[str, Any]] = fused["hits"]["hits"]
    texts = [h["_source"]["text"] for h in hits[:scored]]
    scores = [0.0] * len(texts)
    if texts:
        answer = session.post(rerank_url, json={"query": text, "documents": texts})
        answer.raise_for_status()
        for item in answer.json():
            scores[item["index"]] = float(item["relevance_score"])
    return hits, scores


def collect(
    client: OpenSearch,
    index: str,
    pipeline: str,
    service_url: str,
    model: str,
    queries: Sequence[tuple[str, str]],
    candidates: int,
    depth: int,
) -> list[Candidates]:
    out = []
    session = requests.Session()
    for number, (query_id, text) in enumerate(queries, start=1):
        hits, scores = fused_and_scored(
            client, index, pipeline, session, f"{service_url}/v1/rerank/{model}", text, candidates, depth
        )
        out.append(Candidates(query_id, [h["_source"]["doc_id"] for h in hits], scores))
        if number % 50 == 0:
            print(f"  {number}/{len(queries)} queries", file=sys.stderr)
    return out


def evaluate_point(qrels: Qrels, items: Sequence[Candidates], depth: int, weight: float) -> GridPoint:
    ndcg: dict[str, float] = {}
    recall: dict[str, float] = {}
    for item in items:
        scores = blended_scores(item.scores[:depth], len(item.doc_ids), weight)
        ranking = list(dict.fromkeys(item.doc_ids[i] for i in blended_order(scores)))
        ndcg[item.query_id] = ndcg_at_k(qrels[item.query_id], ranking, 10)
        recall[item.query_id] = recall_at_k(qrels[item.query_id], ranking, 100)
    n = max(len(items), 1)
    return GridPoint(depth, weight, sum(ndcg.values()) / n, sum(recall.values()) / n, ndcg)


def fused_baseline(points: Sequence[GridPoint]) -> GridPoint:
    """The first weight-0 point: the fused ranking itself."""
    return next(p for p in points if p.weight == 0.0)


def against_fused(points: Sequence[GridPoint]) -> list[AgainstFused]:
    """Every point, in order, against the fused ranking (paired randomization test on nDCG@10)."""
    baseline = fused_baseline(points)
    queries = sorted(baseline.per_query)
    return [
        AgainstFused(
            point,
            point.ndcg10 - baseline.ndcg10,
            paired_randomization_test(
                [baseline.per_query[q] for q in queries], [point.per_query[q] for q in queries]
            ).p_value,
        )
        for point in points
    ]


def best_point(points: Sequence[GridPoint]) -> GridPoint:
    """The highest nDCG@10 (to 6 decimals), the smaller model weight on a tie."""
    return max(points, key=lambda p: (round(p.ndcg10, 6), -p.weight))
