"""`query`: a plain-text hybrid query through a search pipeline, as a client sends it."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping
from typing import Any

from control_plane.cli.common import Subcommands, guide
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings


def add_parsers(commands: Subcommands) -> None:
    query = commands.add_parser(
        "query",
        epilog=guide("clients/index.md"),
        help="send a query through a search pipeline, as a client does, and print the hits",
        description="What a client does: POST <index>/_search?search_pipeline=<pipeline>. Through a "
        "clinical pipeline (clinical-minmax, clinical-rrf and their -rerank forms) the body is only "
        '{"query": {"match": {"text": ...}}}: the pipeline builds the hybrid query and routes clinical '
        "sections after fusion. Through the hybrid pipelines it is the explicit hybrid query of BM25, "
        "neural_sparse and neural sub-queries that carry only the text (docs/clients/curl.md shows both).",
    )
    query.add_argument("text", help="the query text")
    query.add_argument("--index", default="chunks-*", help="index or pattern (default chunks-*)")
    query.add_argument(
        "--pipeline",
        default="hybrid-rrf",
        help="search pipeline: hybrid-minmax, hybrid-rrf, clinical-minmax, clinical-rrf, or a -rerank "
        "form (default hybrid-rrf)",
    )
    query.add_argument("--size", type=int, default=5, help="hits to print")
    query.add_argument("--json", action="store_true", help="print the raw response")
    query.set_defaults(handler=_query)


def _query(settings: Settings, args: argparse.Namespace) -> int:
    from control_plane.resources.catalog import RERANK_SUFFIX
    from control_plane.search.pipeline_query import PipelineQuery, pipeline_search

    client = make_client(settings.opensearch)
    wanted = PipelineQuery(args.text, args.pipeline, args.size)
    watch = args.pipeline.endswith(RERANK_SUFFIX)
    before = _fallbacks(settings) if watch else None
    started = time.perf_counter()
    response = pipeline_search(client, args.index, wanted, settings.models.rerank_top_n)
    elapsed_ms = (time.perf_counter() - started) * 1000
    if args.json:
        print(json.dumps(response, indent=2))
        return 0
    # The round trip, not OpenSearch's `took`, which leaves out a pipeline's response steps.
    print(f"{args.text!r} via {args.pipeline} ({elapsed_ms:.0f} ms round trip)")
    if watch:
        print(rerank_line(before, _fallbacks(settings)))
    for rank, hit in enumerate(response["hits"]["hits"], start=1):
        print(hit_line(rank, hit))
    return 0


def _fallbacks(settings: Settings) -> dict[str, float] | None:
    from control_plane.inference.fallback_counts import rerank_fallback_counts

    try:
        return rerank_fallback_counts(settings.models.service_url, settings.models.rerank)
    except OSError:
        return None


def rerank_line(before: Mapping[str, float] | None, after: Mapping[str, float] | None) -> str:
    """What became of a -rerank search's rerank, as the inference service counted it (the pipeline's hits
    do not say): the fused order and why, or no fallback counted (reranked, unless the rerank step failed
    outright, which the step ignores and the service counts as a failed request, not a fallback)."""
    from control_plane.inference.fallback_counts import counted_since

    if before is None or after is None:
        return "  rerank: unknown (the inference service's /metrics could not be read)"
    moved = counted_since(before, after)
    if not moved:
        return "  rerank: no fallback counted by the inference service during this search"
    reasons = ", ".join(moved)
    hint = (
        "; search.rerank_requires_gpu is true and the model runs on CPU: set it false and run "
        "`biohybrid models register` to rerank on CPU"
        if "gpu_unavailable" in moved
        else ""
    )
    return f"  rerank: not applied, the fused order ({reasons}, counted by the inference service{hint})"


def hit_line(rank: int, hit: Mapping[str, Any]) -> str:
    """One hit as the command prints it: score, record, section's intent, the lift routing gave it (a
    clinical pipeline's note, where its form writes it) and the start of its text (``content`` in the
    Haystack forms)."""
    from control_plane.clinical.pipeline import route_note

    source = hit["_source"]
    snippet = " ".join((source.get("text") or source.get("content") or "").split())[:110]
    intent = source.get("intent_hint") or "-"
    note = route_note(source) or ""
    lift = note.rpartition("; ")[2]
    lifted = f" {lift}" if lift.startswith("lifted x") else ""
    return f"  {rank}. {hit['_score']:.4f}  {source.get('doc_id')}  [{intent}]{lifted} {snippet}"
