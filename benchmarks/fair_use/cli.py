"""Command line of the fair-use benchmark."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from benchmarks import fair_use
from benchmarks.clinical_pipelines.compute import latency
from benchmarks.fair_use.measure import Burst, ordinary_run
from benchmarks.fair_use.report import Findings, render_report
from benchmarks.run_stamp import finished_run
from control_plane.config.settings import load_settings
from control_plane.query.components import COMPONENT_ORDER
from control_plane.testsets.catalog import load_test_set

PROG = "python -m benchmarks.fair_use"
WARM_UP = 5


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=fair_use.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--api", default="http://127.0.0.1:8600")
    parser.add_argument("--key", required=True, help="the ordinary caller's key")
    parser.add_argument("--abusive-key", required=True, help="the key that bursts oversized questions")
    parser.add_argument(
        "--questions",
        default="clinical/dev",
        help="the ordinary questions' split (needs 5 + 2 x --count questions: none is asked twice)",
    )
    parser.add_argument("--count", type=int, default=60, help="ordinary searches per run (idle, busy)")
    parser.add_argument("--rounds", type=int, default=3, help="idle and busy take turns this many times")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument(
        "--abusive-chars",
        type=int,
        default=2000,
        help="the abusive questions' length (2,000: the longest the API takes; 200: ordinary-sized ones, "
        "which only the request limits slow)",
    )
    parser.add_argument("--out", type=Path, required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    load_before = os.getloadavg()[0]
    api_settings = load_settings().api  # as the API under test reads them: start it with the same settings
    limits = api_settings.key_limits
    questions = [q.text for q in load_test_set(args.questions).queries()]
    needed = WARM_UP + 2 * args.count
    if len(questions) < needed:
        build_parser().error(
            f"{args.questions} has {len(questions)} questions; --count {args.count} needs {needed} "
            "(every search its own question, so the encoding cache favours neither run): lower --count"
        )
    ordinary_run(args.api, args.key, questions[:WARM_UP])  # warm the code paths, on questions of their own
    idle_questions, busy_questions = split_runs(questions[WARM_UP:needed], args.rounds)
    idle, busy, statuses = [], [], Counter[int]()
    for idle_round, busy_round in zip(idle_questions, busy_questions, strict=True):
        idle += ordinary_run(args.api, args.key, idle_round)
        burst = Burst(args.api, args.abusive_key, args.threads, limit=1000, chars=args.abusive_chars)
        burst.start()
        try:
            busy += ordinary_run(args.api, args.key, busy_round)
        finally:
            burst.stop()
        statuses += burst.statuses
    findings = Findings(
        idle=latency([a.ms for a in idle]),
        busy=latency([a.ms for a in busy]),
        whole_idle=sum(a.status == 200 and a.components == COMPONENT_ORDER for a in idle),
        whole_busy=sum(a.status == 200 and a.components == COMPONENT_ORDER for a in busy),
        abusive=statuses,
        lost=Counter(error for a in idle + busy for error in a.component_errors),
        threads=args.threads,
        chars=args.abusive_chars,
        rounds=args.rounds,
        key_limits=limits.model_dump_json(),
        busy_share=api_settings.busy_share.model_dump_json(),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(findings, finished_run(PROG, argv, load_before)), encoding="utf-8")
    print(args.out.read_text(encoding="utf-8"))
    return 0


def split_runs(questions: list[str], rounds: int) -> tuple[list[list[str]], list[list[str]]]:
    """Alternate questions between the idle and the busy runs (alike in kind, none asked twice), each cut
    into ``rounds`` consecutive parts: idle and busy take turns, so a drift of the machine's load falls
    on both."""
    idle, busy = questions[0::2], questions[1::2]
    size = -(-len(idle) // rounds)
    return (
        [idle[i : i + size] for i in range(0, len(idle), size)],
        [busy[i : i + size] for i in range(0, len(busy), size)],
    )
