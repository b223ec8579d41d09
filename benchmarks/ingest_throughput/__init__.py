"""Ingest throughput report: end-to-end chunks/s with the time split between parsing (and chunking),
encoding and indexing, on this machine, written as markdown.

    python -m benchmarks.ingest_throughput medline --limit 2000 \\
        --out model_artifacts/reports/ingest-throughput.md

Runs against the configured node (BIOHYBRID_CONFIG) into a fresh index that it deletes afterwards.
"""
