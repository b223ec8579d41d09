"""Command line of the query-cache benchmark: draw the sequence, start one API per mode, time the
sequence through all of them, then write the report and the plot."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from opensearchpy.exceptions import NotFoundError, TransportError

from benchmarks import query_cache
from benchmarks.query_cache.compute import mode_figures
from benchmarks.query_cache.draw import warmup_queries, zipf_draw
from benchmarks.query_cache.measure import (
    MODES,
    BenchmarkError,
    cache_metrics,
    run_sequence,
    running_apis,
)
from benchmarks.query_cache.render import plot_ecdf
from benchmarks.query_cache.report import Header, render_report
from benchmarks.run_stamp import finished_run
from benchmarks.search_latency.queries import UsageError, load_queries
from benchmarks.search_latency.stack import onnx_providers
from control_plane.background import ServiceStartError
from control_plane.cluster.client import make_client
from control_plane.config.settings import LOCAL_FILE, ConfigError, Settings, load_settings
from control_plane.formulas.percentile import PERCENTILE_METHODS

PROG = "python -m benchmarks.query_cache"
DEFAULT_QUERY_SETS = "nfcorpus/train,nfcorpus/dev"
DEFAULT_SEED = "query-cache-v1"
DEFAULT_EXPONENT = 0.8
# Each mode's API log and pid (kept after the run, for a look at what went wrong).
STATE_ROOT = Path(".local") / "query-cache"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=query_cache.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--key", default=os.environ.get("BIOHYBRID_API_KEY", ""), help="search API key")
    parser.add_argument(
        "--config",
        default=os.environ.get("BIOHYBRID_CONFIG", str(LOCAL_FILE)),
        help="settings file of the APIs started (default $BIOHYBRID_CONFIG, else the local configuration)",
    )
    parser.add_argument(
        "--index", default="chunks-nfcorpus", help="what the APIs search (default chunks-nfcorpus)"
    )
    parser.add_argument("--requests", type=int, default=1500, help="timed requests per mode (default 1500)")
    parser.add_argument(
        "--warmup", type=int, default=20, help="untimed warm-up requests per mode (default 20)"
    )
    parser.add_argument(
        "--zipf-exponent", type=float, default=DEFAULT_EXPONENT, help=f"default {DEFAULT_EXPONENT}"
    )
    parser.add_argument("--seed", default=DEFAULT_SEED, help="seed of the popularity order and the draw")
    parser.add_argument("--query-sets", default=DEFAULT_QUERY_SETS, help="train/dev test set ids")
    parser.add_argument("--modes", default=",".join(MODES), help=f"default {','.join(MODES)}")
    parser.add_argument("--size", type=int, default=10, help="results per search (default 10)")
    parser.add_argument("--percentile-method", choices=list(PERCENTILE_METHODS), default="nearest-rank")
    parser.add_argument("--timeout", type=float, default=30.0, help="client timeout per request, seconds")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    parser.add_argument("--no-progress", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.key:
        parser.error("give a search API key with --key or $BIOHYBRID_API_KEY (local: demo-search-key)")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes: choose from {', '.join(MODES)}")
    try:
        return _run(args, modes, argv)
    except (ConfigError, UsageError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (BenchmarkError, ServiceStartError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3


def _run(args: argparse.Namespace, modes: list[str], argv: Sequence[str] | None) -> int:
    settings = load_settings(args.config)
    query_sets = [name.strip() for name in args.query_sets.split(",") if name.strip()]
    pool = load_queries(query_sets)
    draw = zipf_draw(pool, args.requests, args.zipf_exponent, args.seed)
    warmup = warmup_queries(pool, draw, args.warmup)
    chunks = _chunks(settings, args.index)
    environment = {
        "BIOHYBRID__SEARCH__INDEX_PATTERN": args.index,
        "BIOHYBRID_EVAL__SCHEDULE__ENABLED": "false",
    }
    progress = not args.no_progress
    load_before = os.getloadavg()[0]
    with running_apis(modes, args.config, environment, STATE_ROOT) as urls:
        warm = [False] * len(warmup)
        run_sequence(urls, args.key, warmup, warm, args.size, args.timeout, "warm-up", progress)
        samples = run_sequence(
            urls, args.key, draw.queries, draw.repeats(), args.size, args.timeout, "timed", progress
        )
        metrics = {mode: cache_metrics(url) for mode, url in urls.items()}
    figures = [mode_figures(samples, mode, args.percentile_method) for mode in modes]
    header = Header(
        run=finished_run(PROG, argv, load_before),
        index=args.index,
        chunks=chunks,
        query_sets=" + ".join(query_sets),
        draw=draw,
        warmup=len(warmup),
        size=args.size,
        cache=settings.search.cache,
        method=args.percentile_method,
        providers=onnx_providers(settings.models.service_url.rstrip("/")),
        metrics=metrics,
    )
    plot = args.out.with_suffix(".png")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot_ecdf(samples, modes, plot)
    args.out.write_text(render_report(header, figures, plot.name), encoding="utf-8")
    for f in figures:
        print(
            f"{f.mode:9} P50 {f.latency.p50 or 0:7.1f} P95 {f.latency.p95 or 0:7.1f} ms  "
            f"response hits {f.response_hit_rate if f.response_hit_rate is not None else '-'}  "
            f"errors {f.errors}"
        )
    print(f"report written to {args.out}")
    return 0


def _chunks(settings: Settings, index: str) -> int:
    client = make_client(settings.opensearch)
    try:
        return int(client.count(index=index)["count"])
    except NotFoundError:
        raise BenchmarkError(
            f"no index {index!r}: build it with `biohybrid ingest nfcorpus --index {index}`"
        ) from None
    except TransportError as exc:
        raise BenchmarkError(f"cannot count {index!r} at {settings.opensearch.url}: {exc}") from None
