"""`snapshot create|list|restore`: back up the chunk indices and the eval-runs store, and restore them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime

from control_plane.cli.common import EXIT_DRIFT, Subcommands, guide
from control_plane.cluster.client import make_client
from control_plane.cluster.snapshots import (
    DEFAULT_INDICES,
    DEFAULT_REPOSITORY,
    SnapshotError,
    create_snapshot,
    find_snapshot,
    list_snapshots,
    model_choice,
    require_same_models,
    restore_models,
    restore_snapshot,
)
from control_plane.config.settings import Settings


def add_parsers(commands: Subcommands) -> None:
    snapshot = commands.add_parser(
        "snapshot",
        epilog=guide("operations/snapshots.md"),
        help="back up the chunk indices and eval-runs into a snapshot repository, list and restore them",
        description="Snapshots go to a filesystem repository under the node's path.repo (the Ansible role's "
        "opensearch_snapshot_dir), registered on first use. A snapshot records the models its vectors were "
        "made with; a restore registers them in ml-commons again (against this cluster's inference service) "
        "and re-applies the pipelines, so plain-text queries answer as before.",
    )
    actions = snapshot.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create", help="take a snapshot and wait for it", epilog=guide("operations/snapshots.md")
    )
    create.add_argument("name", nargs="?", help="snapshot name (default: biohybrid-<UTC timestamp>)")
    create.add_argument(
        "--indices", default=",".join(DEFAULT_INDICES), help=f"indices (default {','.join(DEFAULT_INDICES)})"
    )
    listing = actions.add_parser(
        "list", help="the repository's snapshots, oldest first", epilog=guide("operations/snapshots.md")
    )
    restore = actions.add_parser(
        "restore", help="restore a snapshot's indices", epilog=guide("operations/snapshots.md")
    )
    restore.add_argument("name", help="snapshot name (see `biohybrid snapshot list`)")
    restore.add_argument("--replace", action="store_true", help="delete indices of the same names first")
    restore.add_argument(
        "--no-models",
        action="store_true",
        help="restore the indices only (no model registration, no pipeline update)",
    )
    for parser in (create, listing, restore):
        parser.add_argument("--repository", default=DEFAULT_REPOSITORY, help=f"default {DEFAULT_REPOSITORY}")
        parser.add_argument("--json", action="store_true", help="print JSON")
    snapshot.set_defaults(handler=_snapshot)


def _snapshot(settings: Settings, args: argparse.Namespace) -> int:
    client = make_client(settings.opensearch)
    try:
        if args.action == "create":
            name = args.name or datetime.now(UTC).strftime("biohybrid-%Y%m%dt%H%M%Sz")
            info = create_snapshot(
                client, name, args.indices.split(","), args.repository, models=model_choice(settings)
            )
            _print(
                [asdict(info)] if args.json else [f"{info.name}: {info.state}, {', '.join(info.indices)}"],
                args,
            )
        elif args.action == "list":
            found = list_snapshots(client, args.repository)
            lines = [f"{s.name}  {s.state}  {s.start}  {', '.join(s.indices)}" for s in found]
            _print([asdict(s) for s in found] if args.json else lines or ["(no snapshots)"], args)
        else:
            snapshot = find_snapshot(client, args.name, args.repository)
            if not args.no_models:
                require_same_models(snapshot, settings)  # before any index is touched
            restored = restore_snapshot(client, args.name, replace=args.replace, repository=args.repository)
            models = [] if args.no_models else restore_models(client, settings, snapshot)
            registered = {m.role: m.model_id for m in models}
            _print(
                [{"indices": restored, "models": registered}]
                if args.json
                else [f"restored {', '.join(restored)}"]
                + [f"model {role} registered as {model_id}" for role, model_id in registered.items()],
                args,
            )
    except SnapshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_DRIFT
    return 0


def _print(items: Sequence[object], args: argparse.Namespace) -> None:
    if args.json:
        print(json.dumps(items, indent=2))
    else:
        for line in items:
            print(line)
