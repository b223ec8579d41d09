"""Build the MEDLINE chunk index the search latency benchmark runs on beside chunks-nfcorpus: the first
--limit citations of the MEDLINE sample (files in sorted order, so the same citations every time),
chunked and encoded as `biohybrid ingest medline` does, which has no --limit.

    python -m control_plane.benchmarks.medline_index --index chunks-medline --limit 10000

The whole sample (~50,000 citations) takes about 30-45 minutes to encode on 2 CPU cores (~30 chunks/s,
model_artifacts/reports/ingest-throughput-medline.md); 10,000 about 6-10 minutes. Re-running is safe:
unchanged chunks are skipped, so raising --limit only encodes the new citations. Then point the API
and the benchmark at NFCorpus + MEDLINE:

    biohybrid api stop
    BIOHYBRID__SEARCH__INDEX_PATTERN=chunks-nfcorpus,chunks-medline biohybrid api start
    python -m control_plane.benchmarks.search_latency --key demo-search-key \\
        --index-pattern chunks-nfcorpus,chunks-medline --out model_artifacts/reports/search-latency.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

from control_plane.cluster.client import make_client
from control_plane.config.settings import ConfigError, load_settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m control_plane.benchmarks.medline_index",
        description=__doc__,
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
    encoder, counter = python_encoder(settings)
    options = IngestOptions(
        index=args.index,
        tenant_id=args.tenant,
        strategy=args.strategy,
        batch_chunks=args.batch_size,
        progress=not args.no_progress,
        limit_documents=args.limit or None,
    )
    dead_letter = DeadLetterFile(args.dead_letter)
    try:
        summary = ingest(
            make_client(settings.opensearch), ["medline"], options, encoder, dead_letter, counter
        )
    except OpenSearchConnectionError:
        print(
            f"error: cannot reach OpenSearch at {settings.opensearch.url}: start the node with `make run` "
            "(or `make node-up`)",
            file=sys.stderr,
        )
        return 3
    print(
        f"{summary.documents} citations, {summary.chunks} chunks ({summary.written} written, "
        f"{summary.unchanged} unchanged) into {args.index} in {summary.seconds:.0f} s "
        f"({summary.chunks_per_s:.1f} chunks/s; encode {summary.encode_s:.0f} s); "
        f"{summary.parse_errors} parse errors, {summary.index_failures} index failures"
    )
    return 0 if not (summary.parse_errors or summary.index_failures) else 1


if __name__ == "__main__":
    sys.exit(main())
