"""Ingest throughput report: end-to-end chunks/s with the time split between parsing (and chunking),
encoding and indexing, on this machine, written as markdown.

    python -m control_plane.benchmarks.ingest_throughput medline --limit 2000 \\
        --out model_artifacts/reports/ingest-throughput.md

Runs against the configured node (BIOHYBRID_CONFIG) into a fresh index that it deletes afterwards.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path

from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", help="dataset id or path (e.g. medline)")
    parser.add_argument("--limit", type=int, help="ingest only the first N documents")
    parser.add_argument("--strategy", default="section")
    parser.add_argument("--batch-size", type=int, default=256, help="chunks per bulk batch")
    parser.add_argument("--out", type=Path, required=True, help="markdown report to write")
    args = parser.parse_args(argv)

    settings = load_settings()
    client = make_client(settings.opensearch)
    dense, sparse = DenseEncoder.load(settings.models.dense), SparseEncoder.load(settings.models.sparse)
    counter = HuggingFaceTokenCounter.from_file(dense.model.files.tokenizer)
    index = f"{settings.index.prefix}-bench-{uuid.uuid4().hex[:8]}"
    options = IngestOptions(
        index=index, strategy=args.strategy, batch_chunks=args.batch_size, limit_documents=args.limit
    )
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        dead = DeadLetterFile(Path(scratch) / "dead-letter.jsonl")
        try:
            summary = ingest(client, [args.source], options, ModelChunkEncoder(dense, sparse), dead, counter)
        finally:
            client.indices.delete(index=index, ignore_unavailable=True)
    load = (load_before, os.getloadavg()[0])
    command = " ".join(["python -m control_plane.benchmarks.ingest_throughput", *(argv or sys.argv[1:])])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        _report(summary, args.source, command, dense.model.session.providers, load), encoding="utf-8"
    )
    print(f"{summary.chunks_per_s:.1f} chunks/s; report written to {args.out}")
    return 0


def _report(
    summary: IngestSummary,
    source: str,
    command: str,
    providers: list[str],
    load: tuple[float, float],
) -> str:
    total = summary.seconds or 1.0
    rows = [
        ("parse + chunk", summary.parse_s),
        ("encode (dense + SPLADE)", summary.encode_s),
        ("index (bulk, hash look-ups)", summary.index_s),
    ]
    lines = [
        f"# Ingest throughput: {source}",
        "",
        f"- command: `{command}`",
        f"- machine: {platform.machine()}, {os.cpu_count()} CPUs, {_cpu_model()}; onnxruntime providers "
        f"{providers}; {datetime.now(UTC).date().isoformat()}",
        f"- 1-minute load average before / after: {load[0]:.2f} / {load[1]:.2f} (above the CPU count "
        "means other work shared the cores)",
        f"- documents {summary.documents:,}, chunks {summary.chunks:,}, parse errors {summary.parse_errors}, "
        f"index failures {summary.index_failures}, duplicates skipped {summary.duplicates}",
        f"- **end to end: {summary.chunks_per_s:.1f} chunks/s** ({summary.seconds:.1f} s)",
        "",
        "| stage | seconds | share |",
        "|---|---:|---:|",
        *[f"| {name} | {seconds:.1f} | {seconds / total:.0%} |" for name, seconds in rows],
        "",
        "One run on a shared machine: read the split, not the third digit.",
        "",
    ]
    return "\n".join(lines)


def _cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "unknown CPU"
    return next(
        (ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), "unknown CPU"
    )


if __name__ == "__main__":
    sys.exit(main())
