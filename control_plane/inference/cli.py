"""Command line of the inference service: ``python -m control_plane.inference`` or, wired into another CLI,
``add_service_arguments(subparser)`` + ``serve(config_from_args(args))``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from control_plane.errors import BiohybridError
from control_plane.inference.callers import DEFAULT_RATES, CallerRate, parse_rate
from control_plane.inference.config import DEFAULT_HOST, DEFAULT_PORT, ServiceConfig
from control_plane.inference.faults import ENV_VAR as FAULT_ENV_VAR
from control_plane.inference.server import serve
from control_plane.logs import configure_logging
from control_plane.serving import DEFAULT_TOKEN_FILE, TOKEN_FILE_ENV

DESCRIPTION = (
    "Serve dense embeddings, SPLADE term weights and cross-encoder relevance scores over HTTP, in the shapes "
    "ml-commons' connector functions expect (see control_plane/inference/app.py)."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m control_plane.inference", description=DESCRIPTION)
    add_service_arguments(parser)
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--log-format", choices=["json", "text"], default="json")
    return parser


def add_service_arguments(p: argparse.ArgumentParser) -> None:
    """The service's options (host, port, models, batching and request limits) on any parser."""
    d = ServiceConfig()
    p.add_argument("--host", default=DEFAULT_HOST, help=f"bind address (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    for flag, what, defaults in (
        ("--dense", "dense model", d.dense_models),
        ("--sparse", "sparse model", d.sparse_models),
        ("--rerank", "cross-encoder", d.rerank_models),
    ):
        help_text = f"{what} to serve (repeatable; default {', '.join(defaults)})"
        p.add_argument(flag, action="append", help=help_text)
    p.add_argument("--max-batch", type=int, default=d.max_batch, help="texts per model call")
    p.add_argument("--max-wait-ms", type=float, default=d.max_wait_ms, help="wait to fill a batch")
    p.add_argument(
        "--queue-size", type=int, default=d.queue_size, help="queued requests per model before 503"
    )
    p.add_argument("--max-items", type=int, default=d.max_items, help="texts per request")
    p.add_argument("--max-chars", type=int, default=d.max_chars, help="characters per text")
    p.add_argument(
        "--max-query-tokens",
        type=int,
        default=d.max_query_tokens,
        help="tokens of a query (input_type query) encoded; the rest is cut (default %(default)s)",
    )
    p.add_argument(
        "--timeout", type=float, default=d.request_timeout_s, help="seconds before a queued request gets 503"
    )
    p.add_argument("--top-k", type=int, help="sparse terms kept per text (default: manifest)")
    p.add_argument("--min-weight", type=float, help="smallest sparse weight kept (default: manifest)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto", help="onnxruntime device")
    p.add_argument("--threads", type=int, default=0, help="onnxruntime threads per session (0: one per core)")
    p.add_argument(
        "--manifest", type=Path, help="model manifest (default: the packaged models/manifest.yaml)"
    )
    p.add_argument("--http-threads", type=int, default=d.http_threads, help="request threads of the server")
    p.add_argument(
        "--caller-share",
        type=float,
        default=d.caller_share,
        help="share of the request threads one caller (X-Biohybrid-Caller: api, ingest, opensearch) may "
        "hold; past it 429 (default %(default)s)",
    )
    p.add_argument(
        "--caller-rate",
        action="append",
        default=[],
        type=_rate_flag,
        metavar="NAME=PER_S[:BURST]",
        help="requests per second a caller may send (burst: default twice the rate), or NAME=off; "
        "repeat per caller; past it 429 with Retry-After. NAME: api, ingest, opensearch, unnamed (no "
        "header) or other (every other name, together). Default: "
        + ", ".join(f"{n}={r.per_s:g}:{r.burst}" for n, r in DEFAULT_RATES.items())
        + "; the project's own callers have none",
    )
    p.add_argument(
        "--caller-token-file",
        type=Path,
        help="the secret a project caller (api, ingest, opensearch) sends as 'Authorization: Bearer' to be "
        f"counted under its name; made on first use (default ${TOKEN_FILE_ENV} or {DEFAULT_TOKEN_FILE}; "
        "`biohybrid models register` gives it to OpenSearch's connectors)",
    )
    p.add_argument("--debug", action="store_true", help="werkzeug's development server (never in production)")
    p.add_argument(
        "--fault-injection",
        action="store_true",
        help=f"serve /admin/faults: make the next N model calls fail (tests only; or {FAULT_ENV_VAR}=1)",
    )


def _rate_flag(text: str) -> tuple[str, CallerRate | None]:
    try:
        return parse_rate(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def caller_rates(flags: Sequence[tuple[str, CallerRate | None]]) -> dict[str, CallerRate]:
    """The default rates with each ``--caller-rate`` applied in order."""
    rates = dict(DEFAULT_RATES)
    for name, rate in flags:
        if rate is None:
            rates.pop(name, None)
        else:
            rates[name] = rate
    return rates


def config_from_args(args: argparse.Namespace) -> ServiceConfig:
    return ServiceConfig(
        host=args.host,
        port=args.port,
        dense_models=tuple(args.dense or ServiceConfig().dense_models),
        sparse_models=tuple(args.sparse or ServiceConfig().sparse_models),
        rerank_models=tuple(args.rerank or ServiceConfig().rerank_models),
        max_batch=args.max_batch,
        max_wait_ms=args.max_wait_ms,
        queue_size=args.queue_size,
        max_items=args.max_items,
        max_chars=args.max_chars,
        max_query_tokens=args.max_query_tokens,
        request_timeout_s=args.timeout,
        sparse_top_k=args.top_k,
        sparse_min_weight=args.min_weight,
        device=args.device,
        threads=args.threads,
        manifest=args.manifest,
        http_threads=args.http_threads,
        caller_share=args.caller_share,
        caller_rates=caller_rates(args.caller_rate),
        caller_token_file=args.caller_token_file,
        debug=args.debug,
        fault_injection=args.fault_injection or os.environ.get(FAULT_ENV_VAR, "") == "1",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(args.log_level, args.log_format, debug=args.debug)
    try:
        return serve(config_from_args(args))
    except (BiohybridError, ValueError) as exc:  # expected start-up failures: one line, the fix in it
        if args.debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
