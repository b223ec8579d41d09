"""`search`: a query through the control API's /v1/search (clinical boosts, per-component scores,
degradation), printed as a table; the counterpart of `query`, which goes straight to OpenSearch."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import requests

from control_plane.cli.common import EXIT_CLUSTER, EXIT_CONFIG, Subcommands, guide
from control_plane.config.settings import Settings
from control_plane.query.components import COMPONENTS

ENV_API_KEY = "BIOHYBRID_API_KEY"


def add_parsers(commands: Subcommands) -> None:
    search = commands.add_parser(
        "search",
        epilog=guide("api/index.md"),
        help="search through the control API (/v1/search) and print results with their scores",
        description="POST /v1/search on the running control API (`biohybrid api start`). The key comes "
        f"from --key or ${ENV_API_KEY}; it fixes the tenant searched.",
    )
    search.add_argument("text", help="the query text")
    search.add_argument("--api", help="API base URL (default: http://<api.host>:<api.port>)")
    search.add_argument("--key", help=f"API key (default: ${ENV_API_KEY})")
    search.add_argument("--size", type=int, default=5, help="results to print")
    search.add_argument("--fusion", choices=["rrf", "weighted"], default="rrf", help="fusion method")
    search.add_argument("--rerank", action="store_true", help="rerank the fused candidates")
    search.add_argument("--no-boosts", action="store_true", help="no clinical intent boosts")
    search.add_argument("--documents", action="store_true", help="document granularity")
    search.add_argument("--json", action="store_true", help="print the raw answer")
    search.set_defaults(handler=_search)


def _search(settings: Settings, args: argparse.Namespace) -> int:
    key = args.key or os.environ.get(ENV_API_KEY)
    if not key:
        print(f"error: give an API key with --key or ${ENV_API_KEY}", file=sys.stderr)
        return EXIT_CONFIG
    base = args.api or f"http://{settings.api.host}:{settings.api.port}"
    body: dict[str, Any] = {
        "query": args.text,
        "size": args.size,
        "fusion_method": args.fusion,
        "rerank": args.rerank,
        "boosts": not args.no_boosts,
        "granularity": "document" if args.documents else "chunk",
    }
    try:
        response = requests.post(f"{base}/v1/search", json=body, headers={"X-API-Key": key}, timeout=60)
    except requests.ConnectionError:
        print(f"error: no control API at {base}: start it with `biohybrid api start`", file=sys.stderr)
        return EXIT_CLUSTER
    answer = response.json()
    if response.status_code != 200:
        print(f"error: {response.status_code}: {answer.get('error', {}).get('message')}", file=sys.stderr)
        return EXIT_CLUSTER
    if args.json:
        print(json.dumps(answer, indent=2))
        return 0
    _print(answer)
    return 0


def _print(answer: dict[str, Any]) -> None:
    meta = answer["metadata"]
    intents = ", ".join(f"{i['name']} {i['confidence']:.2f}" for i in meta["intents"]) or "none"
    boosts = ", ".join(f"{b['field']}={b['values']}×{b['factor']:.2f}" for b in meta["boosts"]) or "none"
    components = ",".join(meta["components_used"])
    print(
        f"{meta['query']!r} via /v1/search: {meta['fusion']['method']} over {components}"
        f"{' + rerank' if meta['reranked'] else ''}, {meta['timings']['total_ms']:.0f} ms; "
        f"query type {meta['query_type']}; intents {intents}; boosts {boosts}"
    )
    if meta["component_errors"] or meta["reranker_error"]:
        print(f"  degraded: {meta['component_errors']} reranker_error={meta['reranker_error']}")
    for rank, result in enumerate(answer["results"], start=1):
        chunk = result["chunks"][0] if "chunks" in result else result
        scores = chunk["component_scores"]
        parts = " ".join(f"{name}={scores[name]:.2f}" for name in COMPONENTS if scores.get(name))
        snippet = " ".join(chunk["text"].split())[:90]
        print(
            f"  {rank}. {result['score']:.4f} {result['doc_id']} [{chunk.get('intent_hint') or '-'}] {parts}"
        )
        print(f"       {snippet}")
