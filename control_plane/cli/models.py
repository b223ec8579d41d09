"""`models register|status`: the served models in ml-commons."""

from __future__ import annotations

import argparse
import json

from control_plane.cli.common import EXIT_DRIFT, Subcommands
from control_plane.cluster.manage import apply_resources
from control_plane.config.settings import Settings
from control_plane.mlcommons.registry import models_status, register_models
from control_plane.opensearch.client import make_client
from control_plane.resources.catalog import load_resources


def add_parsers(commands: Subcommands) -> None:
    models = commands.add_parser(
        "models",
        help="register the served models in ml-commons, or show their state",
        description="`models register` creates the loopback connectors, the model group and one remote "
        "model per role (dense, sparse, rerank), deploys them, and re-applies the pipelines so their "
        "ids become the query defaults. Idempotent by name. `models status` shows ids and states.",
    )
    models.add_argument("action", choices=["register", "status"], help="what to do")
    models.add_argument("--json", action="store_true", help="print the result as JSON")
    models.set_defaults(handler=_models)


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
