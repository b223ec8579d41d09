"""What reranking adds to a search, per rerank depth, on this machine: the inference service's
`/v1/rerank/<model>` call (the one OpenSearch's rerank processor makes) timed at each depth, next to the
first-stage search it follows.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m control_plane.benchmarks.rerank_latency \\
        --test-set nfcorpus/dev --index chunks-nfcorpus --queries 40 \\
        --out model_artifacts/reports/ranking-quality/rerank-latency.md

Per query: the hybrid-minmax pipeline's fused top ``max(depths)`` chunks for the plain-text query
(timed: the search without rerank), then one rerank call per depth with the first ``depth`` texts, the
depths in rotating order so machine noise hits all alike. The call carries the same blend and budget
the rerank connector sends (models.rerank_model_weight; no budget, so nothing is shed). P50/P95 per
depth, client-side, one request at a time; a warm-up query first, not counted.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import requests

from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.evaluation.report import describe_machine
from control_plane.formulas.percentile import percentile
from control_plane.query.components import text_hybrid_query
from control_plane.reports.figures import new_figure, save_figure
from control_plane.reports.markdown import markdown_table
from control_plane.testsets.catalog import is_test_split, load_test_set

DEPTHS = (10, 20, 30, 50)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--test-set", required=True, help="queries from a non-test split")
    parser.add_argument("--index", required=True)
    parser.add_argument("--pipeline", default="hybrid-minmax")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--depths", default=",".join(str(d) for d in DEPTHS))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if is_test_split(args.test_set):
        parser.error("latency is measured on non-test queries")
    depths = [int(d) for d in args.depths.split(",")]
    settings = load_settings()
    client = make_client(settings.opensearch)
    session = requests.Session()
    url = f"{settings.models.service_url}/v1/rerank/{settings.models.rerank}"
    queries = [q.text for q in load_test_set(args.test_set).queries()][: args.queries + 1]
    search_ms: list[float] = []
    rerank_ms: dict[int, list[float]] = {d: [] for d in depths}
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    for number, text in enumerate(queries):
        body = {"size": max(depths), "_source": ["text"], "query": text_hybrid_query(text)}
        began = time.perf_counter()
        hits = client.search(index=args.index, params={"search_pipeline": args.pipeline}, body=body)["hits"][
            "hits"
        ]
        searched = (time.perf_counter() - began) * 1000
        texts = [h["_source"]["text"] for h in hits]
        order = depths[number % len(depths) :] + depths[: number % len(depths)]
        for depth in order:
            payload = {
                "query": text,
                "documents": texts,
                "depth": depth,
                "model_weight": settings.models.rerank_model_weight,
            }
            began = time.perf_counter()
            session.post(url, json=payload, timeout=120).raise_for_status()
            if number > 0:  # the first query warms up
                rerank_ms[depth].append((time.perf_counter() - began) * 1000)
        if number > 0:
            search_ms.append(searched)
    rows = [["search without rerank", str(len(search_ms)), *_p(search_ms)]]
    rows += [[f"rerank depth {d}", str(len(rerank_ms[d])), *_p(rerank_ms[d])] for d in depths]
    command = shlex.join(sys.argv[1:] if argv is None else list(argv))
    plot_path = args.out.with_suffix(".png")
    lines = [
        "# Rerank latency per depth",
        "",
        "Command: `BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        f"python -m control_plane.benchmarks.rerank_latency {command}`",
        f"Machine: {describe_machine()}; load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
        f"{time.monotonic() - started:.0f} s.",
        f"Model {settings.models.rerank} (weight {settings.models.rerank_model_weight}), pipeline "
        f"{args.pipeline} on {args.index}, {len(search_ms)} {args.test_set} queries (one warm-up not "
        "counted). A reranked search costs the search plus the rerank call (OpenSearch adds its "
        "processor's own small overhead).",
        "",
        *markdown_table(["step", "n", "P50 ms", "P95 ms"], rows),
        "",
        f"![rerank latency per depth]({plot_path.name})",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    figure = new_figure(6, 3.6)
    axes = figure.add_subplot(1, 1, 1)
    axes.plot(depths, [percentile(rerank_ms[d], 50) for d in depths], marker="o", label="P50")
    axes.plot(depths, [percentile(rerank_ms[d], 95) for d in depths], marker="o", label="P95")
    axes.set_xlabel("rerank depth (pairs scored)")
    axes.set_ylabel("rerank call, ms")
    axes.legend()
    save_figure(figure, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0


def _p(values: Sequence[float]) -> list[str]:
    return [f"{percentile(values, 50):.0f}", f"{percentile(values, 95):.0f}"] if values else ["", ""]


if __name__ == "__main__":
    sys.exit(main())
