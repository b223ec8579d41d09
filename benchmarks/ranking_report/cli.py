"""Command line of the ranking-quality report: read the named evaluation runs, write one table per test
set."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from benchmarks import ranking_report
from benchmarks.ranking_report.compute import BASELINE, SAME, EvaluatedRun, load_runs
from benchmarks.ranking_report.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.testsets.catalog import load_test_set

PROG = "python -m benchmarks.ranking_report"


def _run_argument(text: str) -> tuple[str, str, Path]:
    test_set, _, rest = text.partition("=")
    label, _, folder = rest.partition(":")
    if not (test_set and label and folder):
        raise argparse.ArgumentTypeError(f"expected TEST_SET=LABEL:FOLDER, got {text!r}")
    return test_set, label, Path(folder)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=ranking_report.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--run", type=_run_argument, action="append", required=True, help="TEST_SET=LABEL:FOLDER"
    )
    parser.add_argument(
        "--against",
        default=BASELINE,
        help=f"the configuration every row is compared with, under the first label (default {BASELINE}); "
        f"'{SAME}': each configuration against itself under the first label (what a model changes)",
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--preamble", type=Path, help="markdown put above the tables (what was run and why)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    by_test_set: dict[str, list[EvaluatedRun]] = {}
    for test_set, label, folder in args.run:
        runs = load_runs(label, folder) if (folder / "results.json").is_file() else []
        if not runs:
            raise SystemExit(
                f"error: --run {test_set}={label}:{folder}: no results.json and runs/*.trec under {folder} "
                "(pass a folder `biohybrid evaluate` wrote)"
            )
        by_test_set.setdefault(test_set, []).extend(runs)
    test_sets = {name: (runs, load_test_set(name).qrels()) for name, runs in by_test_set.items()}
    header = Header(
        run=finished_run(PROG, argv, load_before),
        preamble=args.preamble.read_text(encoding="utf-8") if args.preamble else None,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    try:
        text = render_report(header, test_sets, args.against)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0
