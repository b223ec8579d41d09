"""python -m control_plane.monitoring fetch | check | up | down  (make monitoring-check / -up / -down)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from control_plane.errors import BiohybridError
from control_plane.locations import REPOSITORY_ROOT
from control_plane.monitoring.assets import RULES_FILE
from control_plane.monitoring.checks import check_rules, run_rule_tests
from control_plane.monitoring.local import render_config, start_prometheus, stop_prometheus
from control_plane.monitoring.tool import fetch_prometheus

STATE_DIR = REPOSITORY_ROOT / ".local" / "prometheus"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m control_plane.monitoring",
        description="The pinned Prometheus and the project's alert rules (ops/prometheus/).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("fetch", help="fetch and verify the pinned Prometheus package (.local/tools)")
    commands.add_parser("check", help="promtool check rules + test rules on ops/prometheus/")
    up = commands.add_parser(
        "up", help="start a local Prometheus scraping the API and the inference service with the rules"
    )
    up.add_argument(
        "--api", default="127.0.0.1:8600", help="the control API's host:port (default %(default)s)"
    )
    up.add_argument(
        "--inference",
        default="127.0.0.1:8501",
        help="the inference service's host:port (default %(default)s)",
    )
    up.add_argument(
        "--port", type=int, default=9090, help="Prometheus' port on 127.0.0.1 (default %(default)s)"
    )
    up.add_argument(
        "--interval", type=float, default=15.0, help="scrape and rule interval, s (default %(default)s)"
    )
    commands.add_parser("down", help="stop the local Prometheus")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except BiohybridError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.command == "down":
        print("stopped" if stop_prometheus(STATE_DIR) else "not running")
        return 0
    tool = fetch_prometheus()
    if args.command == "fetch":
        print(f"prometheus {tool.version}: {tool.prometheus}\npromtool:  {tool.promtool}")
        return 0
    if args.command == "check":
        results = (check_rules(tool), run_rule_tests(tool))
        for result in results:
            print(f"$ {result.command}\n{result.output}")
        return 0 if all(r.ok for r in results) else 1
    stop_prometheus(STATE_DIR)
    config = render_config(
        {"api": [args.api], "inference": [args.inference]}, [Path(RULES_FILE)], args.interval
    )
    server = start_prometheus(tool, config, STATE_DIR, args.port)
    print(f"Prometheus {server.url} (pid {server.pid}); config and log in {STATE_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
