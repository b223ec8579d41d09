"""biohybrid: administer the OpenSearch-native hybrid retrieval stack.

Exit codes: 0 success, 1 drift found (verify) or a resource failed, 2 bad configuration or usage,
3 the cluster could not be reached or refused a request.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import TransportError

from control_plane.cluster.manage import EngineUnavailableError, apply_resources, verify_resources
from control_plane.cluster.status import read_status
from control_plane.config.settings import ENV_CONFIG_FILE, ConfigError, Settings, load_settings
from control_plane.logs import configure_logging
from control_plane.mlcommons.registry import (
    ModelsNotReadyError,
    deployed_model_ids,
    models_status,
    register_models,
)
from control_plane.opensearch.client import make_client
from control_plane.resources.catalog import Resource, load_resources
from control_plane.resources.render import RenderError

EXIT_DRIFT = 1
EXIT_CONFIG = 2
EXIT_CLUSTER = 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="biohybrid",
        description="Administer the biomedical hybrid retrieval stack: install index templates and search "
        "pipelines into OpenSearch, check them for drift, and report the node's state.",
        epilog=f"Configuration: packaged defaults, then --config FILE (or ${ENV_CONFIG_FILE}), then "
        "BIOHYBRID__SECTION__KEY=value variables. The local Maven-built node needs "
        "--config control_plane/config/local.yaml (k-NN engine lucene).",
    )
    parser.add_argument("--config", help=f"YAML settings file (default: ${ENV_CONFIG_FILE} if set)")
    parser.add_argument("--log-level", default="INFO", help="logging level (default: INFO)")
    parser.add_argument("--log-format", choices=["json", "text"], default="json", help="log line format")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    apply = commands.add_parser(
        "apply",
        help="install or update templates and pipelines (idempotent)",
        description="Render index_templates/ and search_pipelines/ from the settings and install each "
        "one whose cluster copy differs. Running it twice changes nothing the second time.",
    )
    apply.add_argument("--json", action="store_true", help="print the result as JSON")
    verify = commands.add_parser(
        "verify",
        help="diff the repository against the cluster; exit 1 on drift",
        description="Compare every rendered resource with the cluster's copy. Prints each difference "
        "and exits 1 if anything is missing or differs (run `apply` to repair).",
    )
    verify.add_argument("--json", action="store_true", help="print the differences as JSON")
    status = commands.add_parser(
        "status",
        help="node, version, plugins, modules, k-NN engine, templates and pipelines",
        description="Report the node and the state (in sync / drift / missing) of each resource.",
    )
    status.add_argument("--json", action="store_true", help="print the status as JSON")

    models = commands.add_parser(
        "models",
        help="register the served models in ml-commons, or show their state",
        description="`models register` creates the loopback connectors, the model group and one remote "
        "model per role (dense, sparse, rerank), deploys them, and re-applies the pipelines so their "
        "ids become the query defaults. Idempotent by name. `models status` shows ids and states.",
    )
    models.add_argument("action", choices=["register", "status"], help="what to do")
    models.add_argument("--json", action="store_true", help="print the result as JSON")

    ingest = commands.add_parser(
        "ingest",
        help="parse, chunk, encode and index documents (resumable, idempotent)",
        description="Index dataset ids (nfcorpus, scifact, pmc, ctgov, medline) or files/folders. Bad "
        "records go to the dead-letter file and the rest land; a re-run skips unchanged chunks, updates "
        "changed ones and deletes chunks of documents that shrank.",
    )
    ingest.add_argument("sources", nargs="+", help="dataset ids, files or folders")
    ingest.add_argument("--index", help="target index (default: <index.prefix>-<tenant>)")
    ingest.add_argument("--tenant", default="default", help="tenant id stored on every chunk")
    ingest.add_argument(
        "--strategy",
        default="sentence",
        choices=["section", "paragraph", "sentence", "sliding_window"],
        help="chunking",
    )
    ingest.add_argument(
        "--token-budget", type=int, default=254, help="max tokens per chunk (dense tokenizer)"
    )
    ingest.add_argument("--overlap-pct", type=float, default=20.0, help="sliding-window overlap in percent")
    ingest.add_argument("--batch-size", type=int, default=256, help="chunks per bulk batch")
    ingest.add_argument(
        "--encode",
        choices=["python", "pipeline"],
        default="python",
        help="python: encode here in batches (fast path); pipeline: the chunk-embed ingest "
        "pipeline encodes inside OpenSearch (needs `models register`)",
    )
    ingest.add_argument("--dead-letter", default=".local/dead-letter.jsonl", help="where rejected records go")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar")

    service = commands.add_parser(
        "service",
        help="start or stop the local inference service in the background",
        description="Local form of the model server (pid and log under .local/inference/); a running "
        "service on the port is reused. Production runs it under systemd.",
    )
    service.add_argument("action", choices=["start", "stop"], help="what to do")
    service.add_argument("--port", type=int, default=8501, help="port (default 8501, as models.service_url)")

    query = commands.add_parser(
        "query",
        help="send a plain-text hybrid query through a search pipeline and print the hits",
        description="What a client does: POST <index>/_search?search_pipeline=<pipeline> with a hybrid "
        "query of BM25, neural_sparse and neural sub-queries that carry only the text.",
    )
    query.add_argument("text", help="the query text")
    query.add_argument("--index", default="chunks-*", help="index or pattern (default chunks-*)")
    query.add_argument("--pipeline", default="hybrid-rrf", help="search pipeline (default hybrid-rrf)")
    query.add_argument("--size", type=int, default=5, help="hits to print")
    query.add_argument("--json", action="store_true", help="print the raw response")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(args.log_level, args.log_format)
    try:
        settings = load_settings(args.config)
        load_resources(settings)
    except (ConfigError, RenderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        return _COMMANDS[args.command](settings, args)
    except (EngineUnavailableError, ModelsNotReadyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except OpenSearchConnectionError:
        print(
            f"error: cannot reach OpenSearch at {settings.opensearch.url}; start the local node with "
            "`make run` (or ansible-playbook ansible/site.yml) or set opensearch.url",
            file=sys.stderr,
        )
        return EXIT_CLUSTER
    except TransportError as exc:
        print(f"error: OpenSearch refused the request: {exc}", file=sys.stderr)
        return EXIT_CLUSTER


def _current_resources(client: OpenSearch, settings: Settings) -> list[Resource]:
    """The resources as they should be now: with the ids of whichever models are deployed."""
    return load_resources(settings, deployed_model_ids(client, settings))


def _apply(settings: Settings, args: argparse.Namespace) -> int:
    client = make_client(settings.opensearch)
    results = apply_resources(client, settings, _current_resources(client, settings))
    if args.json:
        print(json.dumps([{"resource": r.label, "action": r.action.value} for r in results], indent=2))
    else:
        for r in results:
            print(f"{r.action.value:>9}  {r.label}")
    return 0


def _verify(settings: Settings, args: argparse.Namespace) -> int:
    client = make_client(settings.opensearch)
    drift = verify_resources(client, _current_resources(client, settings))
    drifted = {label: diffs for label, diffs in drift.items() if diffs}
    if args.json:
        print(json.dumps({k: [vars(d) for d in v] for k, v in drifted.items()}, indent=2))
    else:
        for label, diffs in drift.items():
            print(f"{'drift' if diffs else 'ok':>5}  {label}")
            for d in diffs:
                print(f"         {d}")
        print("no drift" if not drifted else f"{len(drifted)} resource(s) differ: run `biohybrid apply`")
    return EXIT_DRIFT if drifted else 0


def _status(settings: Settings, args: argparse.Namespace) -> int:
    client = make_client(settings.opensearch)
    status = read_status(client, settings, _current_resources(client, settings))
    if args.json:
        print(json.dumps(status.to_dict(), indent=2))
        return 0
    print(f"cluster     {status.cluster_name} at {status.url} — health {status.health}")
    nodes = ", ".join(status.nodes)
    print(f"version     OpenSearch {status.version} ({status.build_type} build), nodes: {nodes}")
    print(f"plugins     {', '.join(status.plugins) or '(none)'}")
    if status.missing_plugins:
        print(f"MISSING     {', '.join(status.missing_plugins)}")
    print(f"modules     {', '.join(status.modules)}")
    print(f"k-NN engine {status.knn_engine} (setting index.knn.engine)")
    for label, state in status.resources.items():
        print(f"{'resource':<11} {label}: {state}")
    return 0


def _models(settings: Settings, args: argparse.Namespace) -> int:
    client = make_client(settings.opensearch)
    if args.action == "register":
        models = register_models(client, settings)
        ids = {m.role: m.model_id for m in models}
        apply_resources(client, settings, load_resources(settings, ids))
    else:
        models = models_status(client, settings)
    if args.json:
        print(json.dumps([vars(m) for m in models], indent=2))
    else:
        for m in models:
            print(f"{m.role:<7} {m.name:<36} {m.model_id or '-':<22} {m.state}")
    return 0 if all(m.state == "DEPLOYED" for m in models) else EXIT_DRIFT


def _ingest(settings: Settings, args: argparse.Namespace) -> int:
    from pathlib import Path

    from control_plane.ingestion.bulk import DeadLetterFile
    from control_plane.ingestion.encode import ModelChunkEncoder, PipelineChunkEncoder
    from control_plane.ingestion.run import IngestOptions, ingest
    from control_plane.ingestion.tokens import HuggingFaceTokenCounter
    from control_plane.models.dense import DenseEncoder
    from control_plane.models.sparse import SparseEncoder

    client = make_client(settings.opensearch)
    dense = DenseEncoder.load(settings.models.dense)
    counter = HuggingFaceTokenCounter.from_file(dense.model.files.tokenizer)
    if args.encode == "python":
        encoder: ModelChunkEncoder | PipelineChunkEncoder = ModelChunkEncoder(
            dense, SparseEncoder.load(settings.models.sparse)
        )
        pipeline = None
    else:
        if {"dense", "sparse"} - set(deployed_model_ids(client, settings)):
            print(
                "error: --encode pipeline needs deployed models: run `biohybrid models register`",
                file=sys.stderr,
            )
            return EXIT_CONFIG
        encoder, pipeline = PipelineChunkEncoder(), "chunk-embed"
    options = IngestOptions(
        index=args.index or f"{settings.index.prefix}-{args.tenant}",
        tenant_id=args.tenant,
        strategy=args.strategy,
        token_budget=args.token_budget,
        overlap_pct=args.overlap_pct,
        batch_chunks=args.batch_size,
        pipeline=pipeline,
        progress=not args.no_progress,
    )
    dead_letter = DeadLetterFile(Path(args.dead_letter))
    summary = ingest(client, args.sources, options, encoder, dead_letter, counter)
    print(
        f"{summary.documents} documents, {summary.chunks} chunks ({summary.written} written, "
        f"{summary.unchanged} unchanged, {summary.deleted} deleted), {summary.duplicates} duplicates "
        f"skipped, {summary.parse_errors} parse errors, {summary.index_failures} index failures, "
        f"{summary.chunks_per_s:.1f} chunks/s into {options.index}"
    )
    split = (
        f"parse+chunk {summary.parse_s:.1f}s, encode {summary.encode_s:.1f}s, index {summary.index_s:.1f}s"
    )
    print(f"time: {split}")
    if dead_letter.count:
        print(f"{dead_letter.count} rejected record(s) written to {dead_letter.path}")
    return 0 if not (summary.parse_errors or summary.index_failures) else EXIT_DRIFT


def _query(settings: Settings, args: argparse.Namespace) -> int:
    from control_plane.query.components import text_hybrid_query

    client = make_client(settings.opensearch)
    body = {
        "size": args.size,
        "query": text_hybrid_query(args.text),
        "_source": {"excludes": ["embedding", "sparse_terms"]},
    }
    if args.pipeline.endswith("-rerank"):
        # The rerank processor rescores every returned hit: fetch the configured depth, show the top.
        body["ext"] = {"rerank": {"query_context": {"query_text": args.text}}}
        body["size"] = max(args.size, settings.models.rerank_top_n)
    response = client.search(index=args.index, params={"search_pipeline": args.pipeline}, body=body)
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


def _service(settings: Settings, args: argparse.Namespace) -> int:
    from control_plane.inference import daemon

    if args.action == "start":
        try:
            url, started = daemon.start(args.port)
            print(f"inference service {'started' if started else 'already running'} at {url}")
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_CLUSTER
    else:
        print("inference service stopped" if daemon.stop() else "no inference service was running")
    return 0


_COMMANDS = {
    "apply": _apply,
    "verify": _verify,
    "status": _status,
    "models": _models,
    "ingest": _ingest,
    "query": _query,
    "service": _service,
}


if __name__ == "__main__":
    sys.exit(main())
