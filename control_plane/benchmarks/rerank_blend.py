"""Rerank depth and blend weight chosen on a dev split: a grid of (depth, model weight) over the fused
candidates of one pipeline, as a markdown report with one plot.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m control_plane.benchmarks.rerank_blend \\
        --test-set nfcorpus/dev --index chunks-nfcorpus --out model_artifacts/reports/rerank-blend-dev.md

Per query: the pipeline's fused top ``--candidates`` chunks for the plain-text query (ml-commons encodes
it, as for any direct client), and the served cross-encoder's scores of the first max(depths) of them
from the inference service (`/v1/rerank/<model>`, the endpoint OpenSearch's rerank processor calls).
Every grid point is then the pure blend (control_plane/fusion/rerank_blend.py) of those scores with the
fused order, ranked at document level (best chunk per document), so the whole grid costs one search and
one rerank call per query. Weight 0 is the fused ranking itself: the baseline every other point is
tested against (paired randomization test on per-query nDCG@10).

``--fixed DEPTH:WEIGHT`` evaluates only the baseline and that point (for the one report on a test split,
with settings chosen on dev).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import requests
from opensearchpy import OpenSearch

from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.evaluation.report import describe_machine
from control_plane.fusion.rerank_blend import blended_order, blended_scores
from control_plane.measures.metrics import Qrels, ndcg_at_k, recall_at_k
from control_plane.measures.significance import paired_randomization_test
from control_plane.query.components import text_hybrid_query
from control_plane.reports.figures import new_figure, save_figure
from control_plane.testsets.catalog import load_test_set

DEFAULT_DEPTHS = (10, 20, 30, 50)
DEFAULT_WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)


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
    hits: list[dict[str, Any]] = client.search(index=index, params={"search_pipeline": pipeline}, body=body)[
        "hits"
    ]["hits"]
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


def render(points: Sequence[GridPoint], header: list[str], grid: bool = True) -> str:
    baseline = next(p for p in points if p.weight == 0.0)
    lines = [
        *header,
        "",
        "| depth | model weight | nDCG@10 | Δ vs fused | p (paired) | Recall@100 |",
        "|---|---|---|---|---|---|",
    ]
    for point in points:
        test = paired_randomization_test(
            [baseline.per_query[q] for q in sorted(baseline.per_query)],
            [point.per_query[q] for q in sorted(baseline.per_query)],
        )
        delta = point.ndcg10 - baseline.ndcg10
        lines.append(
            f"| {point.depth} | {point.weight:.2f} | {point.ndcg10:.4f} | {delta:+.4f} "
            f"| {test.p_value:.3f} | {point.recall100:.4f} |"
        )
    if not grid:  # --fixed: the settings were chosen on dev; nothing is chosen here
        return "\n".join(lines) + "\n"
    best = max(points, key=lambda p: (round(p.ndcg10, 6), -p.weight))
    lines += [
        "",
        f"Best point: depth {best.depth}, model weight {best.weight:.2f}: nDCG@10 {best.ndcg10:.4f} "
        f"(fused ranking {baseline.ndcg10:.4f}).",
    ]
    return "\n".join(lines) + "\n"


def plot(points: Sequence[GridPoint], path: Path) -> None:
    figure = new_figure(6.4, 4.0)
    axes = figure.add_subplot()
    for depth in sorted({p.depth for p in points}):
        row = sorted((p for p in points if p.depth == depth), key=lambda p: p.weight)
        axes.plot([p.weight for p in row], [p.ndcg10 for p in row], marker="o", label=f"depth {depth}")
    axes.set_xlabel("model weight (0 = fused order, 1 = cross-encoder order)")
    axes.set_ylabel("nDCG@10")
    axes.grid(alpha=0.3)
    axes.legend()
    save_figure(figure, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--test-set", default="nfcorpus/dev", help="test set id (tune on dev only)")
    parser.add_argument("--index", default="chunks-nfcorpus")
    parser.add_argument(
        "--pipeline", default="hybrid-minmax", help="the fusion pipeline whose order is reranked"
    )
    parser.add_argument("--candidates", type=int, default=100, help="fused chunks per query")
    parser.add_argument("--depths", default=",".join(map(str, DEFAULT_DEPTHS)))
    parser.add_argument("--weights", default=",".join(map(str, DEFAULT_WEIGHTS)))
    parser.add_argument("--fixed", help="DEPTH:WEIGHT: only the fused baseline and this point (test splits)")
    parser.add_argument("--limit", type=int, help="only the first N judged queries")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    args = parser.parse_args(argv)
    settings = load_settings()
    if args.fixed:
        depth_text, weight_text = args.fixed.split(":")
        grid = [(int(depth_text), 0.0), (int(depth_text), float(weight_text))]
    else:
        grid = [(int(d), float(w)) for d in args.depths.split(",") for w in args.weights.split(",")]
    test_set = load_test_set(args.test_set)
    qrels = test_set.qrels()
    queries = [(q.query_id, q.text) for q in test_set.queries()][: args.limit]
    started = time.monotonic()
    items = collect(
        make_client(settings.opensearch),
        args.index,
        args.pipeline,
        settings.models.service_url,
        settings.models.rerank,
        queries,
        args.candidates,
        max(d for d, _ in grid),
    )
    points = [evaluate_point(qrels, items, d, w) for d, w in grid]
    plot_path = args.out.with_suffix(".png")
    command = shlex.join(sys.argv[1:] if argv is None else list(argv))
    seconds = time.monotonic() - started
    header = [
        f"# Rerank blend: {args.test_set}, {args.pipeline} over {args.index}, model {settings.models.rerank}",
        "",
        f"Command: `python -m control_plane.benchmarks.rerank_blend {command}`",
        f"Machine: {describe_machine()}; load average {os.getloadavg()[0]:.1f}; "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {len(items)} queries in {seconds:.0f} s.",
        "",
        "Document-level nDCG@10 and Recall@100 (best chunk per document) of the fused top "
        f"{args.candidates} chunks reranked by the blend; weight 0 is the fused ranking. p: paired "
        "randomization test against it (10,000 permutations).",
        "",
        f"![nDCG@10 by model weight]({plot_path.name})",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(points, header, grid=not args.fixed), encoding="utf-8")
    plot(points, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
