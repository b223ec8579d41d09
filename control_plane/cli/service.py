"""`service start|stop`: the local inference service in the background."""

from __future__ import annotations

import argparse
import sys

from control_plane.cli.common import EXIT_CLUSTER, Subcommands
from control_plane.config.settings import Settings


def add_parsers(commands: Subcommands) -> None:
    service = commands.add_parser(
        "service",
        help="start or stop the local inference service in the background",
        description="Local form of the model server (pid and log under .local/inference/); a running "
        "service on the port is reused. Production runs it under systemd.",
    )
    service.add_argument("action", choices=["start", "stop"], help="what to do")
    service.add_argument("--port", type=int, default=8501, help="port (default 8501, as models.service_url)")
    service.set_defaults(handler=_service)


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
