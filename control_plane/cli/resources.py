"""`apply`, `verify`, `status`: the templates and pipelines in the cluster versus the repository."""

from __future__ import annotations

import argparse
import json

from control_plane.cli.common import EXIT_DRIFT, Subcommands, guide
from control_plane.cluster.client import make_client
from control_plane.cluster.manage import apply_resources, current_resources, verify_resources
from control_plane.cluster.mappings import MappingAction, chunk_mappings, update_index_mappings
from control_plane.cluster.status import read_status
from control_plane.config.settings import Settings


def add_parsers(commands: Subcommands) -> None:
    apply = commands.add_parser(
        "apply",
        epilog=guide("operations/index.md"),
        help="install or update templates and pipelines (idempotent)",
        description="Render index_templates/ and search_pipelines/ from the settings and install each "
        "one whose cluster copy differs. Running it twice changes nothing the second time. A template "
        "applies to indices created after it; --mappings also adds to every existing chunk index the "
        "fields of the chunk mapping it lacks (after an upgrade that added a field, which a strict "
        "mapping would otherwise refuse).",
    )
    apply.add_argument("--json", action="store_true", help="print the result as JSON")
    apply.add_argument(
        "--mappings",
        action="store_true",
        help="also add new chunk-mapping fields to existing <prefix>-* indices (exit 1 if one refuses)",
    )
    apply.set_defaults(handler=_apply)
    verify = commands.add_parser(
        "verify",
        epilog=guide("operations/index.md"),
        help="diff the repository against the cluster; exit 1 on drift",
        description="Compare every rendered resource with the cluster's copy. Prints each difference "
        "and exits 1 if anything is missing or differs (run `apply` to repair).",
    )
    verify.add_argument("--json", action="store_true", help="print the differences as JSON")
    verify.set_defaults(handler=_verify)
    status = commands.add_parser(
        "status",
        epilog=guide("operations/index.md"),
        help="node, version, plugins, modules, k-NN engine, templates and pipelines",
        description="Report the node and the state (in sync / drift / missing) of each resource.",
    )
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.add_argument(
        "--next-steps",
        action="store_true",
        help="print only what runs where (from the settings) and the commands to try next: what `make run` "
        "prints last",
    )
    status.set_defaults(handler=_status)


def _apply(settings: Settings, args: argparse.Namespace) -> int:
    client = make_client(settings.opensearch)
    resources = current_resources(client, settings)
    results = apply_resources(client, settings, resources)
    updates = (
        update_index_mappings(client, f"{settings.index.prefix}-*", chunk_mappings(resources))
        if args.mappings
        else []
    )
    if args.json:
        rows: list[dict[str, object]] = [{"resource": r.label, "action": r.action.value} for r in results]
        rows += [
            {
                "resource": f"index/{u.index}",
                "action": u.action.value,
                "added": list(u.added),
                "error": u.error,
            }
            for u in updates
        ]
        print(json.dumps(rows, indent=2))
    else:
        for r in results:
            print(f"{r.action.value:>9}  {r.label}")
        for u in updates:
            detail = f" (+{', '.join(u.added)})" if u.added else ""
            print(f"{u.action.value:>9}  index/{u.index}{detail}" + (f": {u.error}" if u.error else ""))
    refused = [u.index for u in updates if u.action is MappingAction.REFUSED]
    if refused and not args.json:
        print(f"{len(refused)} index(es) kept their mapping: re-index them into a new index to take it")
    return 1 if refused else 0


def _verify(settings: Settings, args: argparse.Namespace) -> int:
    client = make_client(settings.opensearch)
    drift = verify_resources(client, current_resources(client, settings))
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
    if args.next_steps:
        print("\n".join(next_steps(settings)))
        return 0
    client = make_client(settings.opensearch)
    status = read_status(client, settings, current_resources(client, settings))
    if args.json:
        print(json.dumps(status.to_dict(), indent=2))
        return 0
    print(f"cluster     {status.cluster_name} at {status.url} — health {status.health}")
    nodes = ", ".join(status.nodes)
    print(f"version     OpenSearch {status.version_support}, {status.build_type} build, nodes: {nodes}")
    for problem in status.unhonoured_settings:
        print(f"REFUSED     {problem}")
    print(f"plugins     {', '.join(status.plugins) or '(none)'}")
    if status.missing_plugins:
        print(f"MISSING     {', '.join(status.missing_plugins)}")
    print(f"modules     {', '.join(status.modules)}")
    print(f"k-NN engine {status.knn_engine} (setting index.knn.engine)")
    for node in status.node_details:
        lead = " (cluster manager)" if node.cluster_manager else ""
        roles = ",".join(node.roles)
        where = f"{node.name}{lead} at {node.http_address}"
        print(f"{'node':<11} {where}: {node.shards} shard copies, roles {roles}")
    counts = ", ".join(f"{count} {key.removesuffix('_shards')}" for key, count in status.shards.items())
    print(f"shards      {counts}")
    for label, state in status.resources.items():
        print(f"{'resource':<11} {label}: {state}")
    for index, models in status.indices.items():
        print(f"{'index':<11} {index}: {models}")
    return 0


def next_steps(settings: Settings) -> list[str]:
    """What is running where (from the settings in use) and the commands a newcomer runs next."""
    api = f"http://{settings.api.host}:{settings.api.port}"
    return [
        "running",
        f"  OpenSearch         {settings.opensearch.url}  (search pipelines clinical-*, hybrid-*)",
        f"  inference service  {settings.models.service_url}  (the models ml-commons calls)",
        f"  control API        {api}  (/v1/search, /v1/rewrite; keys in the config's api.keys)",
        f"  relevance console  {api}/console  (with an admin key)",
        "next",
        '  biohybrid query "side effects of the treatment" --index chunks-demo --pipeline clinical-rrf',
        "  make test           the test suite against this node",
        "  make docs           the guide at http://127.0.0.1:8000/",
        "  make api-down node-down   stop everything (the node and the inference service)",
    ]
