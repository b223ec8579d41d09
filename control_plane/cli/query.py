"""`query`: a plain-text hybrid query through a search pipeline, as a client sends it."""

from __future__ import annotations

import argparse
import json

from control_plane.cli.common import Subcommands, guide
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.resilience.retry import retry_transient

CLINICAL_PREFIX = "clinical-"


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
    from control_plane.query.components import plain_search_body, text_search_body

    client = make_client(settings.opensearch)
    clinical = args.pipeline.startswith(CLINICAL_PREFIX)
    body = plain_search_body(args.text, args.size) if clinical else text_search_body(args.text, args.size)
    if args.pipeline.endswith("-rerank") and not clinical:
        # Fetch at least the rerank depth (the service reranks the first rerank_top_n, the rest keep
        # their fused order), show the top.
        body["ext"] = {"rerank": {"query_context": {"query_text": args.text}}}
        body["size"] = max(args.size, settings.models.rerank_top_n)
    # A node leaving or a shard recovering answers for a moment: asked again (resilience/transient.py).
    response = retry_transient(
        lambda: client.search(index=args.index, params={"search_pipeline": args.pipeline}, body=body),
        what="query",
    )
    response["hits"]["hits"] = response["hits"]["hits"][: args.size]
    if args.json:
        print(json.dumps(response, indent=2))
        return 0
    print(f"{args.text!r} via {args.pipeline} ({response['took']} ms)")
    for rank, hit in enumerate(response["hits"]["hits"], start=1):
        source = hit["_source"]
        snippet = " ".join(source.get("text", "").split())[:110]
        intent = source.get("intent_hint") or "-"
        print(f"  {rank}. {hit['_score']:.4f}  {source.get('doc_id')}  [{intent}] {snippet}")
    return 0
