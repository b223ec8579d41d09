"""Command line of the answer-size benchmark: measure, then write the report."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from benchmarks import answer_size
from benchmarks.answer_size.compute import measure, summarise
from benchmarks.answer_size.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import opensearch_session
from control_plane.config.settings import load_settings
from control_plane.testsets.catalog import is_test_split, load_test_set

PROG = "python -m benchmarks.answer_size"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=answer_size.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--test-set", required=True, help="queries from a non-test split, e.g. nfcorpus/dev")
    parser.add_argument("--index", required=True, help="index or pattern, e.g. chunks-nfcorpus")
    parser.add_argument("--pipeline", default="hybrid-rrf", help="search pipeline (default hybrid-rrf)")
    parser.add_argument("--queries", type=int, default=100, help="queries (each sent twice; default 100)")
    parser.add_argument("--size", type=int, default=10, help="hits per answer (default 10)")
    parser.add_argument("--out", type=Path, required=True, help="markdown report")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if is_test_split(args.test_set):
        parser.error("measure on a non-test split")
    settings = load_settings()
    texts = [q.text for q in load_test_set(args.test_set).queries()][: args.queries]
    load_before = os.getloadavg()[0]
    answers = measure(
        opensearch_session(settings.opensearch),
        settings.opensearch.url,
        args.index,
        args.pipeline,
        texts,
        args.size,
    )
    header = Header(finished_run(PROG, argv, load_before), args.index, args.pipeline, args.size)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(header, summarise(answers)), encoding="utf-8")
    print(f"report written to {args.out}")
    return 0
