"""Command line of the ingest throughput benchmark: one timed ingest, then the report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import ingest_throughput
from benchmarks.ingest_throughput.compute import (
    IngestPlan,
    KeepIndexError,
    measure_ingest,
)
from benchmarks.ingest_throughput.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.config.settings import ConfigError, load_settings

PROG = "python -m benchmarks.ingest_throughput"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=ingest_throughput.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", help="dataset id or path (e.g. medline)")
    parser.add_argument("--limit", type=int, help="ingest only the first N documents")
    parser.add_argument("--strategy", default="section")
    parser.add_argument("--batch-size", type=int, default=256, help="chunks per bulk batch")
    parser.add_argument(
        "--encode-sample",
        type=int,
        default=0,
        metavar="N",
        help="time the pure encoding on an evenly spread sample of at most N of the chunks (default 0: "
        "all; the whole MEDLINE sample would otherwise be encoded twice, about 45 min each on 2 cores)",
    )
    parser.add_argument(
        "--keep-index",
        metavar="NAME",
        help="keep the ingested index under NAME (must not exist; starts with the chunk prefix) instead "
        "of deleting it, e.g. as the largest step of search_scale",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--out", type=Path, required=True, help="markdown report to write")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.encode_sample < 0:
        parser.error("--encode-sample must be >= 0")
    plan = IngestPlan(
        args.source, args.strategy, args.batch_size, args.limit, args.encode_sample, args.keep_index
    )
    try:
        run = measure_ingest(load_settings(), plan, progress=not args.no_progress)
    except (ConfigError, KeepIndexError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # The load average before is the ingest's own (taken just before it, the models loaded).
    header = Header(finished_run(PROG, argv, run.load_before))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(run, header), encoding="utf-8")
    print(
        f"{run.summary.chunks_per_s:.1f} chunks/s end to end, {run.encode_only.chunks_per_s:.1f} encoding "
        f"only (ratio {run.ratio:.2f}); report written to {args.out}"
    )
    return 0
