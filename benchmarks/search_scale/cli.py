"""Command line of the scale benchmark: build or reuse the size steps, time each on an API of its own,
then write the summary, the growth plot and each step's own report."""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from opensearchpy import OpenSearch

from benchmarks import search_scale
from benchmarks.run_stamp import finished_run
from benchmarks.search_latency import cli as latency_cli
from benchmarks.search_latency.measure import StackDownError, run_interleaved
from benchmarks.search_latency.queries import UsageError
from benchmarks.search_latency.stack import SetupError
from benchmarks.search_scale.compute import (
    StepRun,
    growth_rows,
    reference_of,
    series_of,
)
from benchmarks.search_scale.render import plot_growth
from benchmarks.search_scale.report import Header, format_ms, render_report
from benchmarks.search_scale.step_api import api_on
from benchmarks.search_scale.steps import (
    StepIndex,
    StepIndexError,
    build_step,
    delete_copies,
    describe,
    parse_sizes,
    step_sizes,
)
from control_plane.cluster.client import make_client
from control_plane.config.settings import ConfigError, load_settings
from control_plane.formulas.percentile import PERCENTILE_METHODS

PROG = "python -m benchmarks.search_scale"
DEFAULT_CONFIGURATIONS = "bm25,splade,dense,hybrid-rrf,hybrid-minmax"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=search_scale.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--source-index", default="chunks-medline-full", help="the large index the steps are cut from"
    )
    parser.add_argument(
        "--sizes", default="10000,18000,40000,all", help="chunk counts of the steps, 'all' = the whole index"
    )
    parser.add_argument(
        "--extra-index",
        default="chunks-nfcorpus,chunks-scifact",
        help="other indices measured as they are, comma-separated ('' for none)",
    )
    parser.add_argument(
        "--reference-size",
        type=int,
        default=18000,
        help="the growth table divides by the step closest to this size (default 18000, the size of the "
        "first latency report)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=8610,
        help="port of the first step's control API (the next steps: +1, +2, ...)",
    )
    parser.add_argument(
        "--api-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a settings override for the per-step API (repeatable), e.g. "
        "BIOHYBRID__SEARCH__CACHE__ENCODING__ENABLED=false so every configuration pays its encoding",
    )
    parser.add_argument("--rebuild", action="store_true", help="copy the steps again even when they exist")
    parser.add_argument("--keep-steps", action="store_true", help="keep the step copies afterwards")
    parser.add_argument(
        "--out", type=Path, required=True, help="summary report; steps go in a folder beside it"
    )
    parser.add_argument(
        "--key",
        default=os.environ.get("BIOHYBRID_API_KEY"),
        help="search API key (default $BIOHYBRID_API_KEY; local stack: demo-search-key)",
    )
    parser.add_argument("--queries", type=int, default=200, help="timed queries per step (default 200)")
    parser.add_argument(
        "--warmup", type=int, default=20, help="untimed warm-up queries per step (default 20)"
    )
    parser.add_argument("--configurations", default=DEFAULT_CONFIGURATIONS, help="evaluation configurations")
    parser.add_argument("--paths", help="api,direct,direct-text subset (default: what search_latency runs)")
    parser.add_argument("--query-sets", default=latency_cli.DEFAULT_QUERY_SETS, help="train/dev query sets")
    parser.add_argument("--seed", default=latency_cli.DEFAULT_SEED, help="seed of the query order")
    parser.add_argument("--percentile-method", choices=list(PERCENTILE_METHODS), default="nearest-rank")
    parser.add_argument("--timeout", type=float, default=30.0, help="client timeout per request, seconds")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.key:
        print("error: give a search API key with --key or $BIOHYBRID_API_KEY", file=sys.stderr)
        return 2
    try:
        return _run(args, argv)
    except (ConfigError, UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (SetupError, StackDownError, StepIndexError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3


def _steps(client: OpenSearch, args: argparse.Namespace) -> list[StepIndex]:
    if not client.indices.exists(index=args.source_index):
        raise SetupError(
            f"no index {args.source_index!r}: build it once with `python -m benchmarks."
            f"ingest_throughput medline --encode-sample 8000 --keep-index {args.source_index} --out "
            "model_artifacts/reports/ingest-throughput-medline-full.md`"
        )
    total = int(client.count(index=args.source_index)["count"])
    steps = [
        build_step(
            client, args.source_index, size, total, rebuild=args.rebuild, progress=not args.no_progress
        )
        for size in step_sizes(total, parse_sizes(args.sizes))
    ]
    for extra in (name.strip() for name in args.extra_index.split(",") if name.strip()):
        if not client.indices.exists(index=extra):
            raise SetupError(f"no extra index {extra!r}: ingest it, or leave it out of --extra-index")
        steps.append(describe(client, extra, "as ingested", extra))
    return sorted(steps, key=lambda s: s.chunks)


def parse_env(pairs: list[str]) -> dict[str, str]:
    """``["A=1", "B=x=y"]`` -> {"A": "1", "B": "x=y"}; a pair without "=" or a key outside the
    settings' ``BIOHYBRID__`` namespace is refused."""
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("BIOHYBRID__"):
            raise ValueError(f"--api-env {pair!r}: give BIOHYBRID__SECTION__KEY=value")
        env[key] = value
    return env


def _latency_args(args: argparse.Namespace, out: Path) -> argparse.Namespace:
    """search_latency's arguments for one step (its parser's defaults for what this one has not)."""
    argv = [
        "--key", args.key, "--queries", str(args.queries), "--warmup", str(args.warmup),
        "--configurations", args.configurations, "--query-sets", args.query_sets, "--seed", args.seed,
        "--percentile-method", args.percentile_method, "--timeout", str(args.timeout), "--out", str(out),
    ]  # fmt: skip
    if args.paths:
        argv += ["--paths", args.paths]
    return latency_cli.build_parser().parse_args(argv)


def _run(args: argparse.Namespace, argv: list[str] | None) -> int:
    load_before = os.getloadavg()[0]
    settings = load_settings()
    client = make_client(settings.opensearch)
    api_env = parse_env(args.api_env)
    steps = _steps(client, args)
    folder = args.out.with_suffix("")
    outs = [folder / f"{step.index}.md" for step in steps]
    step_args = [_latency_args(args, out) for out in outs]
    plan = latency_cli.plan_run(step_args[0])
    progress = not args.no_progress
    try:
        with ExitStack() as apis:
            checked = []
            for number, (step, a) in enumerate(zip(steps, step_args, strict=True)):
                api = apis.enter_context(
                    api_on(step.index, args.port + number, api_env, name=f"api-{number}")
                )
                checked.append(latency_cli.check(latency_cli.endpoints(a, settings, api, step.index), plan))
            paths = [p for p in checked[0].paths if all(p in c.paths for c in checked)]
            eps = [c.ep for c in checked]
            clock, before = time.monotonic(), os.getloadavg()[0]
            _, _, stopped = run_interleaved(eps, plan.configurations, paths, plan.warmup, "warm-up", progress)
            if stopped:
                raise SetupError(f"warm-up stopped: {stopped}")
            samples, loads, stopped = run_interleaved(
                eps, plan.configurations, paths, plan.measured, "search scale", progress
            )
            stamp = latency_cli.timed_run(PROG, argv, before, clock)
            runs = []
            for step, a, c, s, out in zip(steps, step_args, checked, samples, outs, strict=True):
                run = latency_cli.record(a, settings, plan, replace(c, paths=paths), s, loads, stamp, stopped)
                latency_cli.write_outputs(run, out)
                runs.append(StepRun(step, run, f"{folder.name}/{out.name}"))
        if stopped:
            raise StackDownError(f"the run stopped early: {stopped}")
    finally:
        if not args.keep_steps:
            deleted = delete_copies(client, steps)
            if deleted:
                print(f"deleted the step copies {', '.join(deleted)} (--keep-steps keeps them)")
    series = series_of(runs, args.source_index)
    reference = reference_of(series, args.reference_size)
    growth = growth_rows(series, reference, args.percentile_method)
    plot = args.out.with_suffix(".png")
    plot_growth(runs, args.source_index, args.percentile_method, plot)
    header = Header(
        run=finished_run(PROG, argv, load_before),
        queries=args.queries,
        warmup=args.warmup,
        query_source=plan.source,
        method=args.percentile_method,
        providers=runs[0].run.providers,
        plot=plot.name,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(header, runs, series, reference, growth), encoding="utf-8")
    for row in growth:
        at_reference, at_largest = format_ms(row.reference_p95), format_ms(row.largest_p95)
        print(f"{row.path:<12} {row.configuration:<16} P95 {at_reference} -> {at_largest}")
    print(f"report written to {args.out} (plot {plot})")
    return 0
