"""Command line of the search-load benchmark: one locust run per path and client count, then the report."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmarks import search_load
from benchmarks.run_stamp import finished_run
from benchmarks.search_load.compute import LoadPoint, run_locust
from benchmarks.search_load.render import plot
from benchmarks.search_load.report import Header, render_report
from control_plane.config.settings import load_settings
from control_plane.testsets.catalog import is_test_split, load_test_set

PROG = "python -m benchmarks.search_load"
PATHS = ("api", "direct-text")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=search_load.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--api", default="http://127.0.0.1:8600", help="control API base URL")
    parser.add_argument("--key", default=os.environ.get("BIOHYBRID_API_KEY", ""), help="search API key")
    parser.add_argument("--index", default="chunks-*", help="index the direct path searches (as the API's)")
    parser.add_argument("--test-set", default="nfcorpus/dev", help="queries from a non-test split")
    parser.add_argument("--users", default="1,4,16", help="client counts (default 1,4,16)")
    parser.add_argument("--seconds", type=int, default=30, help="seconds per point (default 30)")
    parser.add_argument("--paths", default=",".join(PATHS), help=f"paths (default {','.join(PATHS)})")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if is_test_split(args.test_set):
        parser.error("measure on a non-test split")
    paths = [p for p in args.paths.split(",") if p]
    if unknown := sorted(set(paths) - set(PATHS)):
        parser.error(f"unknown paths {unknown}; known: {', '.join(PATHS)}")
    if "api" in paths and not args.key:
        parser.error("the api path needs --key (or $BIOHYBRID_API_KEY)")
    users = [int(u) for u in args.users.split(",")]
    settings = load_settings()
    hosts = {"api": args.api, "direct-text": settings.opensearch.url}
    load_before = os.getloadavg()[0]
    points: list[LoadPoint] = []
    with tempfile.TemporaryDirectory(prefix="search-load-") as scratch:
        queries = Path(scratch) / "queries.txt"
        queries.write_text(
            "\n".join(q.text for q in load_test_set(args.test_set).queries()), encoding="utf-8"
        )
        environment = {"BIOHYBRID_LOAD_QUERIES": str(queries), "BIOHYBRID_LOAD_INDEX": args.index}
        environment["BIOHYBRID_LOAD_KEY"] = args.key
        for count in users:
            for path in paths:  # paths alternate within each client count
                point = run_locust(path, count, hosts[path], args.seconds, environment, Path(scratch))
                print(
                    f"{path:12} {count:3} clients  {point.qps:7.1f} QPS  P95 {point.p95_ms:6.0f} ms",
                    flush=True,
                )
                points.append(point)
    figure = args.out.with_suffix(".png")
    header = Header(finished_run(PROG, argv, load_before), args.index, args.seconds, args.test_set)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot(points, figure)
    args.out.write_text(render_report(header, points, figure.name), encoding="utf-8")
    print(f"report written to {args.out}")
    return 0
