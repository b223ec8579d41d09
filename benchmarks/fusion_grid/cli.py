"""Command line of the fusion grid: collect each split's lists, score the grid, write report and plot."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import fusion_grid
from benchmarks.arguments import non_test_split, split_limit
from benchmarks.fusion_grid.compute import (
    collect,
    current_settings,
    score_against_current,
    summarize,
)
from benchmarks.fusion_grid.render import plot
from benchmarks.fusion_grid.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings

PROG = "python -m benchmarks.fusion_grid"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=fusion_grid.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split",
        type=non_test_split,
        action="append",
        required=True,
        help="TEST_SET=INDEX, repeatable (dev/train splits only: settings are never chosen on test)",
    )
    parser.add_argument(
        "--limit",
        type=split_limit,
        action="append",
        default=[],
        help="TEST_SET=N: only the first N judged queries of that split (repeatable), e.g. "
        "scifact/train=300, "
        "the claims held out of every model's training",
    )
    parser.add_argument("--depth", type=int, help="chunks per component (default: search.candidate_depth)")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    settings = load_settings()
    depth = args.depth or settings.search.candidate_depth
    client = make_client(settings.opensearch)
    started = time.monotonic()
    limits = dict(args.limit)
    unknown = set(limits) - {test_set for test_set, _ in args.split}
    if unknown:
        raise SystemExit(f"--limit names {sorted(unknown)}, which no --split searches")
    splits = [
        collect(client, settings, test_set, index, depth, limits.get(test_set))
        for test_set, index in args.split
    ]
    grid = score_against_current(splits, current_settings(settings), depth)
    plot_path = args.out.with_suffix(".png")
    run = finished_run(PROG, argv, load_before, seconds=time.monotonic() - started)
    header = Header(run, tuple(splits), settings.models.dense, settings.models.sparse, depth, plot_path.name)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(summarize(grid), header), encoding="utf-8")
    plot(grid.scored, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0
