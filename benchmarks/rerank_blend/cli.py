"""Command line of the rerank-blend grid: collect each query's candidates once, evaluate every point,
write the report and its plot."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import rerank_blend
from benchmarks.rerank_blend.compute import collect, evaluate_point
from benchmarks.rerank_blend.render import plot
from benchmarks.rerank_blend.report import Header, header_lines, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.testsets.catalog import load_test_set

PROG = "python -m benchmarks.rerank_blend"
DEFAULT_DEPTHS = (10, 20, 30, 50)
DEFAULT_WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=rerank_blend.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
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
    parser.add_argument(
        "--model",
        help="the served rerank model to call (default: models.rerank in the settings); the report names it",
    )
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    return parser


def grid_of(args: argparse.Namespace) -> list[tuple[int, float]]:
    """The (depth, weight) points asked for: --fixed's baseline and point, else depths x weights."""
    if args.fixed:
        depth_text, weight_text = args.fixed.split(":")
        return [(int(depth_text), 0.0), (int(depth_text), float(weight_text))]
    return [(int(d), float(w)) for d in args.depths.split(",") for w in args.weights.split(",")]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    settings = load_settings()
    model = args.model or settings.models.rerank
    grid = grid_of(args)
    test_set = load_test_set(args.test_set)
    qrels = test_set.qrels()
    queries = [(q.query_id, q.text) for q in test_set.queries()][: args.limit]
    started = time.monotonic()
    items = collect(
        make_client(settings.opensearch),
        args.index,
        args.pipeline,
        settings.models.service_url,
        model,
        queries,
        args.candidates,
        max(d for d, _ in grid),
    )
    points = [evaluate_point(qrels, items, d, w) for d, w in grid]
    plot_path = args.out.with_suffix(".png")
    header = Header(
        run=finished_run(PROG, argv, load_before, seconds=time.monotonic() - started),
        test_set=args.test_set,
        pipeline=args.pipeline,
        index=args.index,
        model=model,
        queries=len(items),
        candidates=args.candidates,
        plot_name=plot_path.name,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(points, header_lines(header), grid=not args.fixed), encoding="utf-8")
    plot(points, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0
