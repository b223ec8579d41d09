"""Command line of the per-query-type weights: collect and type each split, choose, write the report."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from benchmarks import query_type_weights
from benchmarks.arguments import non_test_split
from benchmarks.fusion_grid.compute import current_settings
from benchmarks.query_type_weights.compute import choose, collect_typed
from benchmarks.query_type_weights.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings

PROG = "python -m benchmarks.query_type_weights"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=query_type_weights.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--split", type=non_test_split, action="append", required=True, help="TEST_SET=INDEX on a dev split"
    )
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    settings = load_settings()
    client = make_client(settings.opensearch)
    splits, types = collect_typed(client, settings, args.split, args.depth)
    current, _ = current_settings(settings)
    choices = choose(splits, types, current, args.depth)
    header = Header(finished_run(PROG, argv, load_before))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(choices, current, header), encoding="utf-8")
    print(args.out)
    return 0
