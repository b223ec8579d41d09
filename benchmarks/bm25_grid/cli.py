"""Command line of the BM25 grid: prepare each split, search the grid, write the report and the plot."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import bm25_grid
from benchmarks.arguments import non_test_split
from benchmarks.bm25_grid.compute import DEEPEST, fusion_parameters, search_grid, tabulate
from benchmarks.bm25_grid.measure import prepare
from benchmarks.bm25_grid.render import plot
from benchmarks.bm25_grid.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings

PROG = "python -m benchmarks.bm25_grid"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=bm25_grid.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split",
        type=non_test_split,
        action="append",
        required=True,
        help="TEST_SET=INDEX, repeatable (dev/train splits only: settings are never chosen on test)",
    )
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    settings = load_settings()
    client = make_client(settings.opensearch)
    started = time.monotonic()
    prepared = {}
    for test_set, index in args.split:
        print(f"collecting {test_set} from {index}", file=sys.stderr)
        prepared[test_set] = prepare(client, settings, test_set, index, DEEPEST)
    fusion = fusion_parameters(settings)
    grid = search_grid(prepared, fusion, (settings.index.bm25.k1, settings.index.bm25.b))
    plot_path = args.out.with_suffix(".png")
    header = Header(
        finished_run(PROG, argv, load_before, seconds=time.monotonic() - started),
        tuple(p.split for p in prepared.values()),
        settings.models.dense,
        settings.models.sparse,
        fusion.weights,
        settings.fusion.rrf.rank_constant,
        plot_path.name,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(grid, tabulate(grid), header), encoding="utf-8")
    plot(grid.scored, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0
