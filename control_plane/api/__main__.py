"""python -m control_plane.api [--port 8600]: serve the control API on waitress (api.threads request threads,
keep-alive); --debug serves it on werkzeug's development server instead."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from opensearchpy.exceptions import TransportError

from control_plane.api.app import create_app, shutdown
from control_plane.cluster.client import make_client
from control_plane.cluster.manage import check_node
from control_plane.config.settings import ConfigError, Settings, load_settings
from control_plane.errors import BiohybridError
from control_plane.logs import configure_logging
from control_plane.serving import ListenError, serve

log = logging.getLogger("control_plane.api")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m control_plane.api", description=__doc__)
    parser.add_argument("--config", help="YAML settings file (default: $BIOHYBRID_CONFIG)")
    parser.add_argument("--host", help="bind address (default: api.host)")
    parser.add_argument("--port", type=int, help="port (default: api.port, 8600)")
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--log-format", choices=["json", "text"], default="json")
    parser.add_argument(
        "--debug", action="store_true", help="werkzeug's development server (never in production)"
    )
    args = parser.parse_args(argv)
    configure_logging(args.log_level, args.log_format, debug=args.debug)
    try:
        settings = load_settings(args.config)
        app = create_app(settings)  # builds the OpenSearch clients: reads opensearch.password_file
    except (ConfigError, BiohybridError) as exc:
        if args.debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    refusal = check_opensearch(settings)
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return 2
    if not settings.api.keys:
        log.warning("no API keys configured (api.keys): every request will be refused with 401")
    host = args.host or settings.api.host
    port = args.port if args.port is not None else settings.api.port
    try:
        serve(app, host, port, threads=settings.api.threads, debug=args.debug)  # until SIGTERM / SIGINT
    except ListenError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        interrupted = shutdown(app, settings.api.job_grace_s)
    if interrupted:
        # An abandoned job's thread may be inside ONNX Runtime: finalising the interpreter around it
        # aborts the process ("terminate called without an active exception") or hangs it. Its end is
        # recorded and the events are sent, so leave without finalising.
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0


def check_opensearch(settings: Settings) -> str:
    """The node's version read at start-up: a setting it cannot honour stops the API (the message says
    which); an unsupported version is logged; a node not reachable yet is logged and left to the
    requests (the API may start before it)."""
    try:
        check_node(make_client(settings.opensearch), settings)
    except BiohybridError as exc:
        return str(exc)
    except TransportError as exc:  # the connection errors included
        log.warning("OpenSearch not reachable at start-up", extra={"error": str(exc)[:300]})
    return ""


if __name__ == "__main__":
    sys.exit(main())
