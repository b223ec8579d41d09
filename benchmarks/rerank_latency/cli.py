"""Command line of the rerank-latency benchmark: time the searches and rerank calls, write the report and
its plot."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

import requests

from benchmarks import rerank_latency
from benchmarks.rerank_latency.compute import measure, summarize
from benchmarks.rerank_latency.render import plot
from benchmarks.rerank_latency.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.testsets.catalog import is_test_split, load_test_set

PROG = "python -m benchmarks.rerank_latency"
DEPTHS = (10, 20, 30, 50)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=rerank_latency.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--test-set", required=True, help="queries from a non-test split")
    parser.add_argument("--index", required=True)
    parser.add_argument("--pipeline", default="hybrid-minmax")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--depths", default=",".join(str(d) for d in DEPTHS))
    parser.add_argument(
        "--model",
        help="the served rerank model to call (default: models.rerank in the settings); the report names it",
    )
    parser.add_argument("--out", type=Path, required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if is_test_split(args.test_set):
        parser.error("latency is measured on non-test queries")
    depths = [int(d) for d in args.depths.split(",")]
    settings = load_settings()
    client = make_client(settings.opensearch)
    model = args.model or settings.models.rerank
    url = f"{settings.models.service_url}/v1/rerank/{model}"
    queries = [q.text for q in load_test_set(args.test_set).queries()][: args.queries + 1]
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    timings = measure(
        client,
        requests.Session(),
        url,
        args.index,
        args.pipeline,
        queries,
        depths,
        settings.models.rerank_model_weight,
    )
    plot_path = args.out.with_suffix(".png")
    header = Header(
        run=finished_run(PROG, argv, load_before, seconds=time.monotonic() - started),
        model=model,
        model_weight=settings.models.rerank_model_weight,
        pipeline=args.pipeline,
        index=args.index,
        test_set=args.test_set,
        plot_name=plot_path.name,
    )
    summary = summarize(timings)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(summary, header), encoding="utf-8")
    plot(summary, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0
