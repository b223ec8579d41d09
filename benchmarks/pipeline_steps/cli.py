"""Command line of the pipeline-steps benchmark."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from opensearchpy import OpenSearch

from benchmarks import pipeline_steps
from benchmarks.pipeline_steps.compute import mean_model_ms, route_step, step_timings
from benchmarks.pipeline_steps.measure import (
    installed_window,
    route_model_reading,
    verbose_steps,
    window_pipelines,
)
from benchmarks.pipeline_steps.paths import Timed, rewrite_only, timed_paths
from benchmarks.pipeline_steps.report import Findings, WindowRow, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.progress import progress_bar
from control_plane.testsets.catalog import is_test_split, load_test_set

PROG = "python -m benchmarks.pipeline_steps"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=pipeline_steps.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split", default="clinical-natural/dev", help="the questions sent (not a test split)"
    )
    parser.add_argument("--index", default="chunks-clinical")
    parser.add_argument("--pipeline", default="clinical-minmax", help="an installed clinical pipeline")
    parser.add_argument("--questions", type=int, default=60, help="questions per pipeline")
    parser.add_argument(
        "--window",
        type=int,
        action="append",
        help="a routing window to time (repeat; default 25, 50, 100, 150)",
    )
    parser.add_argument(
        "--explicit-pipeline",
        default="hybrid-minmax",
        help="the hybrid pipeline the explicit query goes through, for the paths from request to answer",
    )
    parser.add_argument(
        "--no-paths", action="store_true", help="only the steps: skip the paths from request to answer"
    )
    parser.add_argument("--out", type=Path, required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if is_test_split(args.split):
        parser.error(f"--split {args.split} is a test split: time a dev or train split")
    windows = sorted(set(args.window or [25, 50, 100, 150]))
    load_before = os.getloadavg()[0]
    settings = load_settings()
    client = make_client(settings.opensearch)
    texts = [q.text for q in load_test_set(args.split).queries()][: args.questions + 1]

    rows: list[WindowRow] = []
    with (
        window_pipelines(client, args.pipeline, windows) as names,
        progress_bar(total=len(windows), desc="windows", unit="window") as bar,
    ):
        for window in windows:
            before = route_model_reading(settings.models.service_url)
            answers = verbose_steps(client, args.index, names[window], texts)
            after = route_model_reading(settings.models.service_url)
            timings = step_timings(answers)
            model_ms = mean_model_ms(before[0], after[0], before[1], after[1])
            rows.append(WindowRow(window, names[window], timings, route_step(timings), model_ms))
            bar.update()
    paths = None if args.no_paths else _paths(client, args, settings.search.candidate_depth, texts)
    findings = Findings(args.pipeline, f"{len(texts) - 1} {args.split} questions", tuple(rows), paths)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        render_report(findings, finished_run(PROG, argv, load_before), args.index), encoding="utf-8"
    )
    print(f"wrote {args.out}")
    return 0


def _paths(
    client: OpenSearch, args: argparse.Namespace, depth: int, texts: Sequence[str]
) -> dict[str, list[Timed]]:
    """The paths from request to answer at the installed pipeline's own routing window."""
    window = installed_window(client.search_pipeline.get(id=args.pipeline)[args.pipeline])
    with rewrite_only(client, args.pipeline, "bench-steps-rewrite-only") as rewrite:
        pipelines = {"explicit": args.explicit_pipeline, "clinical": args.pipeline, "rewrite": rewrite}
        return timed_paths(client, args.index, pipelines, texts, window, depth)
