"""The command line: parse the arguments, check the stack, time the queries, then write the report, the
plot and (with --samples) the CSV."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks import search_latency
from benchmarks.run_stamp import RunStamp, finished_run
from benchmarks.search_latency.measure import (
    PATH_NAMES,
    Endpoints,
    StackDownError,
    run_queries,
)
from benchmarks.search_latency.queries import (
    UsageError,
    draw_queries,
    load_queries,
    query_source,
)
from benchmarks.search_latency.render import plot_ecdf
from benchmarks.search_latency.report import latency_rows, render_report
from benchmarks.search_latency.samples import IndexCounts, RunRecord, Sample
from benchmarks.search_latency.stack import (
    SetupError,
    check_stack,
    index_counts,
    onnx_providers,
    probe_configurations,
    probe_text_path,
)
from control_plane.cluster.client import opensearch_session
from control_plane.config.settings import ConfigError, Settings, load_settings
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.formulas.percentile import PERCENTILE_METHODS
from control_plane.testsets.catalog import Query

PROG = "python -m benchmarks.search_latency"
DEFAULT_CONFIGURATIONS = "bm25,hybrid-rrf,hybrid-minmax,hybrid-rrf+rerank"
DEFAULT_QUERY_SETS = "nfcorpus/dev,nfcorpus/train"
DEFAULT_SEED = "search-latency-v1"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=search_latency.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--api", default="http://127.0.0.1:8600", help="control API base URL")
    parser.add_argument(
        "--key",
        default=os.environ.get("BIOHYBRID_API_KEY"),
        help="search API key (default $BIOHYBRID_API_KEY; local stack: demo-search-key)",
    )
    parser.add_argument("--opensearch", help="OpenSearch URL (default: opensearch.url of the settings)")
    parser.add_argument("--inference", help="inference service URL (default: models.service_url)")
    parser.add_argument("--queries", type=int, default=1000, help="timed queries (default 1000)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed warm-up queries first (default 20)")
    parser.add_argument(
        "--configurations",
        default=DEFAULT_CONFIGURATIONS,
        help=f"evaluation configurations, comma-separated (default {DEFAULT_CONFIGURATIONS})",
    )
    parser.add_argument(
        "--paths",
        help="comma-separated of api,direct,direct-text (default: api,direct, "
        "and direct-text when the registered models answer)",
    )
    parser.add_argument(
        "--index-pattern",
        default="chunks-*",
        help="what the API searches (checked) and direct paths send to (default chunks-*)",
    )
    parser.add_argument("--size", type=int, default=10, help="results per search (default 10)")
    parser.add_argument(
        "--query-sets",
        default=DEFAULT_QUERY_SETS,
        help=f"train/dev test set ids the texts come from (default {DEFAULT_QUERY_SETS})",
    )
    parser.add_argument("--seed", default=DEFAULT_SEED, help="seed of the query order")
    parser.add_argument("--percentile-method", choices=list(PERCENTILE_METHODS), default="nearest-rank")
    parser.add_argument("--timeout", type=float, default=30.0, help="client timeout per request, seconds")
    parser.add_argument("--out", type=Path, required=True, help="markdown report; the PNG goes beside it")
    parser.add_argument("--samples", type=Path, help="also write every timed request as CSV")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.key:
        print("error: give a search API key with --key or $BIOHYBRID_API_KEY", file=sys.stderr)
        return 2
    try:
        return _run(args, argv if argv is not None else sys.argv[1:])
    except (ConfigError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (SetupError, StackDownError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    run = measure(args, argv)
    write_outputs(run, args.out, args.samples)
    for row in latency_rows(run):
        print(
            f"{row[0]:<12} {row[1]:<22} P50 {row[3]:>7} P95 {row[4]:>7} P99 {row[5]:>7} ms  "
            f"errors {row[8]} degraded {row[9]}"
        )
    print(f"report written to {args.out} (plot {args.out.with_suffix('.png')})")
    if run.stopped:
        print(f"error: the run stopped early: {run.stopped}", file=sys.stderr)
        return 3
    return 0


@dataclass(frozen=True)
class Plan:
    """What a run sends: the configurations, the timed and the warm-up queries, the paths asked for
    (None: every path the stack can serve) and where the query texts come from."""

    configurations: list[EvalConfiguration]
    measured: list[Query]
    warmup: list[Query]
    wanted_paths: list[str] | None
    source: str


@dataclass(frozen=True)
class Checked:
    """A stack that answered the checks: the paths it runs, those it cannot (and why), keep-alive."""

    ep: Endpoints
    paths: list[str]
    skipped: dict[str, str]
    keep_alive: bool
    counts: IndexCounts


def plan_run(args: argparse.Namespace) -> Plan:
    try:
        configurations = load_evaluation_settings().resolve(_names(args.configurations))
        pool = load_queries(_names(args.query_sets))
        measured = draw_queries(pool, args.queries, args.seed)
        warmup = draw_queries(pool, args.warmup, args.seed, skip=args.queries)
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    wanted_paths = _names(args.paths) if args.paths else None
    if set(wanted_paths or []) - set(PATH_NAMES):
        raise UsageError(f"unknown path in --paths {args.paths!r}; known: {', '.join(PATH_NAMES)}")
    source = query_source(pool, _names(args.query_sets), args.queries, args.seed)
    return Plan(configurations, measured, warmup, wanted_paths, source)


def endpoints(args: argparse.Namespace, settings: Settings, api: str, index_pattern: str) -> Endpoints:
    return Endpoints(
        api=api.rstrip("/"),
        key=args.key,
        opensearch=(args.opensearch or settings.opensearch.url).rstrip("/"),
        timeout_s=args.timeout,
        index_pattern=index_pattern,
        size=args.size,
        rerank_top_n=settings.models.rerank_top_n,
        candidate_depth=settings.search.candidate_depth,
        opensearch_session=opensearch_session(settings.opensearch),
    )


def check(ep: Endpoints, plan: Plan) -> Checked:
    """Clear errors before any timing; which paths run (direct-text only when ml-commons answers)."""
    keep_alive = check_stack(ep)
    probe_configurations(ep, plan.configurations, plan.measured[0].text)
    paths, skipped = ["api", "direct"], {}
    if plan.wanted_paths is None or "direct-text" in plan.wanted_paths:
        reason = probe_text_path(ep, plan.configurations, plan.measured[0].text)
        if reason is None:
            paths.append("direct-text")
        elif plan.wanted_paths is not None:
            raise SetupError(f"direct-text cannot run: {reason}")
        else:
            skipped["direct-text"] = reason
    if plan.wanted_paths is not None:
        paths = [p for p in PATH_NAMES if p in plan.wanted_paths and p in paths]
    return Checked(ep, paths, skipped, keep_alive, index_counts(ep))


def measure(args: argparse.Namespace, argv: Sequence[str]) -> RunRecord:
    """Check the stack, then time the warm-up and the measured queries: the whole run, not yet written."""
    settings = load_settings()
    plan = plan_run(args)
    checked = check(endpoints(args, settings, args.api, args.index_pattern), plan)
    clock = time.monotonic()
    progress = not args.no_progress
    load_before = os.getloadavg()[0]
    ep, paths = checked.ep, checked.paths
    _, _, stopped = run_queries(ep, plan.configurations, paths, plan.warmup, "warm-up", progress)
    if stopped:
        raise SetupError(f"warm-up stopped: {stopped}")
    samples, loads, stopped = run_queries(
        ep, plan.configurations, paths, plan.measured, "search latency", progress
    )
    stamp = timed_run(PROG, argv, load_before, clock)
    return record(args, settings, plan, checked, samples, loads, stamp, stopped)


def timed_run(prog: str, argv: Sequence[str] | None, load_before: float, clock: float) -> RunStamp:
    """The run that ends now, timed from ``clock`` (``time.monotonic()``), on this benchmark's machine
    description (architecture, CPUs, CPU model)."""
    return finished_run(prog, argv, load_before, seconds=time.monotonic() - clock)


def record(
    args: argparse.Namespace,
    settings: Settings,
    plan: Plan,
    checked: Checked,
    samples: list[Sample],
    loads: list[float],
    stamp: RunStamp,
    stopped: str | None,
) -> RunRecord:
    """The run as the report states it."""
    ep = checked.ep
    return RunRecord(
        stamp=stamp,
        providers=onnx_providers((args.inference or settings.models.service_url).rstrip("/")),
        loads=loads,
        api=ep.api,
        opensearch=ep.opensearch,
        index_pattern=ep.index_pattern,
        counts_before=checked.counts,
        counts_after=checked.counts if stopped else index_counts(ep),
        query_source=plan.source,
        warmup=args.warmup,
        method=args.percentile_method,
        paths=checked.paths,
        skipped_paths=checked.skipped,
        configurations=plan.configurations,
        samples=samples,
        plot_name=args.out.with_suffix(".png").name,
        api_keep_alive=checked.keep_alive,
        stopped=stopped,
    )


def write_outputs(run: RunRecord, out: Path, samples: Path | None = None) -> None:
    """The markdown report, the ECDF beside it (same name, .png) and, when asked, every sample as CSV."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_report(run), encoding="utf-8")
    plot_ecdf(run, out.with_suffix(".png"))
    if samples:
        write_samples(run.samples, samples)


def write_samples(samples: Sequence[Sample], path: Path) -> None:
    """Every timed request as CSV (encode_ms as JSON), for plots or tests of one's own."""
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(Sample.__dataclass_fields__))
        writer.writeheader()
        for sample in samples:
            writer.writerow({**asdict(sample), "encode_ms": json.dumps(sample.encode_ms)})
