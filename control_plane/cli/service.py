"""`service start|stop` and `api start|stop`: the local inference service and control API in the
background (pid and log under .local/inference/ and .local/api/)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from control_plane.cli.common import EXIT_CLUSTER, EXIT_CONFIG, Subcommands, guide
from control_plane.config.settings import ENV_CONFIG_FILE, Settings


def add_parsers(commands: Subcommands) -> None:
    service = commands.add_parser(
        "service",
        epilog=guide("operations/models.md"),
        help="start or stop the local inference service in the background",
        description="Local form of the model server (pid and log under .local/inference/); a running "
        "service on the port is reused. Production runs it under systemd.",
    )
    service.add_argument("action", choices=["start", "stop"], help="what to do")
    service.add_argument("--port", type=int, default=8501, help="port (default 8501, as models.service_url)")
    service.add_argument(
        "--state-dir",
        type=Path,
        help="folder of its pid and log files (default .local/inference); a second service on this "
        "machine, such as the local cluster's, needs its own",
    )
    for role in ("dense", "sparse", "rerank"):
        service.add_argument(
            f"--{role}",
            action="append",
            default=[],
            metavar="MODEL",
            help=f"a {role} model to serve, from control_plane/models/manifest.yaml (repeatable; default: "
            f"the service's own list, `python -m control_plane.inference --help`); with start only, and "
            "only when no service runs on the port yet",
        )
    service.set_defaults(handler=_service)

    api = commands.add_parser(
        "api",
        epilog=guide("api/index.md"),
        help="start or stop the control API (/v1/search, /v1/rewrite, admin) in the background",
        description="Serves `python -m control_plane.api` with the same settings (pid and log under "
        ".local/api/); a running API on the port is reused. Keys come from api.keys in the settings.",
    )
    api.add_argument("action", choices=["start", "stop"], help="what to do")
    api.add_argument("--port", type=int, help="port (default: api.port, 8600)")
    api.add_argument(
        "--state-dir",
        type=Path,
        help="folder of its pid and log files (default .local/api); a second API here needs its own",
    )
    api.set_defaults(handler=_api)


def _service(settings: Settings, args: argparse.Namespace) -> int:
    from control_plane.inference.process import STATE_DIR, model_options, start_service, stop_service

    state_dir: Path = args.state_dir or STATE_DIR
    models = model_options(args.dense, args.sparse, args.rerank)
    if args.action == "start":
        try:
            url, started = start_service(args.port, state_dir, models=models)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_CLUSTER
        if not started and models:
            print(
                f"error: an inference service already runs at {url} with its own models; stop it first "
                "(biohybrid service stop) to serve the models asked for",
                file=sys.stderr,
            )
            return EXIT_CONFIG
        print(f"inference service {'started' if started else 'already running'} at {url}")
    elif models:
        print("error: --dense, --sparse and --rerank go with start", file=sys.stderr)
        return EXIT_CONFIG
    else:
        stopped = stop_service(state_dir)
        print("inference service stopped" if stopped else "no inference service was running")
    return 0


def _api(settings: Settings, args: argparse.Namespace) -> int:
    from control_plane.api.process import STATE_DIR, start_api, stop_api

    state_dir: Path = args.state_dir or STATE_DIR
    if args.action == "stop":
        print("control API stopped" if stop_api(state_dir) else "no control API was running")
        return 0
    port = args.port if args.port is not None else settings.api.port
    try:
        url, started = start_api(port, args.config, state_dir)
    except RuntimeError as exc:
        print(
            f"error: {exc} (is OpenSearch up? `make node-up`; settings from --config or ${ENV_CONFIG_FILE})",
            file=sys.stderr,
        )
        return EXIT_CLUSTER
    print(f"control API {'started' if started else 'already running'} at {url}")
    return 0
