"""Command line of the fair-use benchmark."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from control_plane.benchmarks import fair_use
from control_plane.benchmarks.clinical_pipelines.compute import latency
from control_plane.benchmarks.fair_use.measure import Burst, ordinary_run
from control_plane.benchmarks.fair_use.report import Findings, render_report
from control_plane.benchmarks.run_context import finished_run
from control_plane.config.settings import load_settings
from control_plane.testsets.catalog import load_test_set

PROG = "python -m control_plane.benchmarks.fair_use"
ALL = ("bm25", "splade", "dense")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=fair_use.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--api", default="http://127.0.0.1:8600")
    parser.add_argument("--key", required=True, help="the ordinary caller's key")
    parser.add_argument("--abusive-key", required=True, help="the key that bursts oversized questions")
    parser.add_argument("--questions", default="clinical-natural/dev", help="the ordinary questions' split")
    parser.add_argument("--count", type=int, default=60, help="ordinary searches per run")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--out", type=Path, required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    limits = load_settings().api.key_limits
    questions = [q.text for q in load_test_set(args.questions).queries()][: args.count]
    ordinary_run(args.api, args.key, questions[:5])  # warm the caches of the code paths, not the answers
    idle = ordinary_run(args.api, args.key, questions)
    burst = Burst(args.api, args.abusive_key, args.threads, limit=1000)
    burst.start()
    try:
        busy = ordinary_run(args.api, args.key, questions)
    finally:
        burst.stop()
    findings = Findings(
        idle=latency([a.ms for a in idle]),
        busy=latency([a.ms for a in busy]),
        whole_idle=sum(a.status == 200 and a.components == ALL for a in idle),
        whole_busy=sum(a.status == 200 and a.components == ALL for a in busy),
        abusive=burst.statuses,
        threads=args.threads,
        key_limits=limits.model_dump_json(),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(findings, finished_run(PROG, argv, load_before)), encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))
    return 0
