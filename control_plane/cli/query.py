"""`query`: a plain-text hybrid query through a search pipeline, as a client sends it."""

from __future__ import annotations

import argparse
import json

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
    from control_plane.search.pipeline_query import PipelineQuery, pipeline_search

    client = make_client(settings.opensearch)
    wanted = PipelineQuery(args.text, args.pipeline, args.size)
    response = pipeline_search(client, args.index, wanted, settings.models.rerank_top_n)
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
