"""Command line of the pipeline-load benchmark."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from benchmarks import pipeline_load
from benchmarks.pipeline_load.compute import Call, LoadPoint, load_point
from benchmarks.pipeline_load.ingest_load import ingest_running
from benchmarks.pipeline_load.measure import API_PATH, PIPELINE_PATHS, Target, closed_loop, sender
from benchmarks.pipeline_load.report import render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.testsets.catalog import is_test_split, load_test_set

PROG = "python -m benchmarks.pipeline_load"
PATHS = (*PIPELINE_PATHS, API_PATH)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=pipeline_load.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--index", default="chunks-demo", help="index searched (default chunks-demo)")
    parser.add_argument("--split", default="clinical-natural/dev", help="questions (a non-test split)")
    parser.add_argument("--clients", default="1,4,10,20,50", help="client counts (default 1,4,10,20,50)")
    parser.add_argument("--seconds", type=float, default=20, help="seconds per point (default 20)")
    parser.add_argument("--paths", default=",".join(PATHS), help=f"paths (default {','.join(PATHS)})")
    parser.add_argument("--api", default="http://127.0.0.1:8600", help="control API base URL")
    parser.add_argument("--key", default=os.environ.get("BIOHYBRID_API_KEY", "demo-search-key"))
    parser.add_argument(
        "--during-ingest",
        metavar="SOURCES",
        help="instead of the client counts: the first count's searches idle and while `biohybrid ingest "
        "SOURCES` (comma-separated) encodes at --nice 0 and at the default 10, the three phases taking "
        "turns --rounds times (each ingest into a scratch index, removed after)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="turns of the phases (default 3)")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds an ingest runs before searches")
    parser.add_argument("--title", default="Searches under concurrent load")
    parser.add_argument("--out", type=Path, required=True, help="markdown report")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if is_test_split(args.split):
        parser.error("measure on a non-test split")
    paths = [p for p in args.paths.split(",") if p]
    if unknown := sorted(set(paths) - set(PATHS)):
        parser.error(f"unknown paths {unknown}; known: {', '.join(PATHS)}")
    clients = [int(c) for c in args.clients.split(",")]
    texts = [q.text for q in load_test_set(args.split).queries()]
    target = Target(load_settings().opensearch, args.index, args.api, args.key)
    load_before = os.getloadavg()[0]
    if args.during_ingest:
        points = _during_ingest(args, paths, clients[0], texts, target)
    else:
        points = _client_counts(args, paths, clients, texts, target)
    stamp = finished_run(PROG, argv, load_before)
    header = [
        *stamp.lines(),
        f"- index `{args.index}`, questions of `{args.split}`, {args.seconds:g} s a point",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(args.title, header, points), encoding="utf-8")
    print(f"report written to {args.out}")
    return 0


def _client_counts(
    args: argparse.Namespace, paths: list[str], clients: list[int], texts: list[str], target: Target
) -> list[LoadPoint]:
    points: list[LoadPoint] = []
    for count in clients:
        for path in paths:  # the paths alternate within each client count, so noise falls on all
            calls, wall = closed_loop(partial(sender, path, target), texts, count, args.seconds)
            point = load_point(path, count, calls, wall)
            print(
                f"{path:24} {count:3} clients  {point.qps:6.1f} q/s  P50 {point.p50_ms:6.0f} ms  "
                f"P95 {point.p95_ms:6.0f} ms  failed {point.failed}",
                flush=True,
            )
            points.append(point)
    return points


PHASES: tuple[tuple[str, int | None], ...] = (
    ("idle", None),
    ("ingest at nice 0", 0),
    ("ingest at nice 10", 10),
)


def _during_ingest(
    args: argparse.Namespace, paths: list[str], clients: int, texts: list[str], target: Target
) -> list[LoadPoint]:
    """Each path's calls over every round of each phase, the phases rotating round by round."""
    client = make_client(load_settings().opensearch)
    calls: dict[tuple[str, str], list[Call]] = {}
    walls: dict[tuple[str, str], float] = {}
    for number in range(args.rounds):
        for phase, nice in PHASES[number % 3 :] + PHASES[: number % 3]:
            scratch = f"{args.index.split('*')[0].rstrip('-')}-priority-probe-{number}"
            with ingest_running(client, args.during_ingest.split(","), scratch, nice, args.warmup):
                for path in paths:
                    made, wall = closed_loop(partial(sender, path, target), texts, clients, args.seconds)
                    calls.setdefault((phase, path), []).extend(made)
                    walls[(phase, path)] = walls.get((phase, path), 0.0) + wall
            print(f"round {number + 1}: {phase} done", flush=True)
    return [
        load_point(f"{path} ({phase})", clients, calls[(phase, path)], walls[(phase, path)])
        for phase, _ in PHASES
        for path in paths
    ]
