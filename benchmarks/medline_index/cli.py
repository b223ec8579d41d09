"""Command line of the MEDLINE index build: check the arguments and settings, ingest, print a summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

from benchmarks import medline_index
from benchmarks.medline_index.compute import build_index
from control_plane.config.settings import ConfigError, load_settings
from control_plane.config.tenancy import TenantIndexError
from control_plane.ingestion.index_models import IndexModelsError, encoding_models
from control_plane.ingestion.run import IngestOptions


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.medline_index",
        description=medline_index.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--index", default="chunks-medline", help="target index (default chunks-medline)")
    parser.add_argument("--limit", type=int, default=10000, help="first N citations (default 10000; 0: all)")
    parser.add_argument("--tenant", default="default", help="tenant id on every chunk (default default)")
    parser.add_argument(
        "--strategy", default="sentence", help="chunking, as chunks-nfcorpus was built (default sentence)"
    )
    parser.add_argument("--batch-size", type=int, default=256, help="chunks per bulk batch")
    parser.add_argument("--dead-letter", type=Path, default=Path(".local/dead-letter-medline.jsonl"))
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.limit < 0:
        parser.error("--limit must be >= 0")
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    prefix = f"{settings.index.prefix}-"
    if not args.index.startswith(prefix):
        # Only names under the chunk template get its mappings (rank_features, knn_vector).
        print(
            f"error: --index must start with {prefix!r} so the chunk index template applies", file=sys.stderr
        )
        return 2
    try:
        options = IngestOptions.for_tenant(
            settings.index,
            args.tenant,
            args.index,
            strategy=args.strategy,
            batch_chunks=args.batch_size,
            progress=not args.no_progress,
            limit_documents=args.limit or None,
            models=encoding_models(settings.models),
        )
    except TenantIndexError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        summary = build_index(settings, options, args.dead_letter)
    except OpenSearchConnectionError:
        print(
            f"error: cannot reach OpenSearch at {settings.opensearch.url}: start the node with `make run` "
            "(or `make node-up`)",
            file=sys.stderr,
        )
        return 3
    except IndexModelsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"{summary.documents} citations, {summary.chunks} chunks ({summary.written} written, "
        f"{summary.unchanged} unchanged) into {args.index} in {summary.seconds:.0f} s "
        f"({summary.chunks_per_s:.1f} chunks/s; encode {summary.encode_s:.0f} s); "
        f"{summary.parse_errors} parse errors, {summary.index_failures} index failures"
    )
    return 0 if not (summary.parse_errors or summary.index_failures) else 1
