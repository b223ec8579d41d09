"""Command line of the learned-ranker benchmark: gather the splits' candidates, train the rankers, score
every split, write the report and its plot."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import learned_ranker
from benchmarks.arguments import non_test_split
from benchmarks.learned_ranker.compute import VARIANTS, score, summarize, train
from benchmarks.learned_ranker.measure import gather
from benchmarks.learned_ranker.render import plot
from benchmarks.learned_ranker.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings

PROG = "python -m benchmarks.learned_ranker"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=learned_ranker.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--train", type=non_test_split, required=True, help="TEST_SET=INDEX the ranker learns from"
    )
    parser.add_argument(
        "--train-queries", type=int, default=800, help="train queries used (a fixed sample by id hash)"
    )
    parser.add_argument("--dev", type=non_test_split, required=True, help="TEST_SET=INDEX that chooses")
    parser.add_argument(
        "--check", type=non_test_split, action="append", default=[], help="other splits, reported"
    )
    parser.add_argument(
        "--check-queries", type=int, help="queries per check split (a fixed sample by id hash; default all)"
    )
    parser.add_argument("--pipeline", default="hybrid-minmax")
    parser.add_argument("--depth", type=int, help="candidates per query (default: the rerank depth)")
    parser.add_argument("--out", type=Path, required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    settings = load_settings()
    depth = args.depth or settings.models.rerank_top_n
    blend = (settings.models.rerank_top_n, settings.models.rerank_model_weight)
    client = make_client(settings.opensearch)
    service = settings.models.service_url
    model = settings.models.rerank
    started = time.monotonic()
    train_items, train_qrels = gather(
        client, args.train, args.pipeline, service, model, depth, args.train_queries
    )
    rankers = {name: train(train_items, train_qrels, columns) for name, columns in VARIANTS.items()}
    results = {}
    for split in [args.dev, *args.check]:
        limit = None if split == args.dev else args.check_queries
        items, qrels = gather(client, split, args.pipeline, service, model, depth, limit)
        results[split[0]] = score(items, qrels, rankers, blend)
    plot_path = args.out.with_suffix(".png")
    header = Header(
        run=finished_run(PROG, argv, load_before, seconds=time.monotonic() - started),
        pipeline=args.pipeline,
        depth=depth,
        model=model,
        train_queries=len(train_items),
        train_split=args.train[0],
        plot_name=plot_path.name,
    )
    summary = summarize(results, args.dev[0], rankers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(summary, header), encoding="utf-8")
    plot(summary.splits, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0
