"""biohybrid: administer the OpenSearch-native hybrid retrieval stack.

Exit codes: 0 success, 1 drift found (verify) or a resource failed, 2 bad configuration or usage,
3 the cluster could not be reached or refused a request, 4 a model call failed (ingest: gpu_unavailable,
circuit_open, ...).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from opensearchpy.exceptions import AuthenticationException, TransportError
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import SSLError as OpenSearchSSLError

from control_plane.cli import (
    datasets,
    evaluate,
    ingest,
    intents,
    jobs,
    models,
    query,
    resources,
    search,
    service,
    snapshot,
)
from control_plane.cli.common import EXIT_CLUSTER, EXIT_CONFIG, SITE
from control_plane.cluster.manage import EngineUnavailableError
from control_plane.config.settings import ENV_CONFIG_FILE, ConfigError, Settings, load_settings
from control_plane.errors import BiohybridError, ClientError, UnavailableError
from control_plane.logs import configure_logging
from control_plane.mlcommons.ml_api import ModelsNotReadyError
from control_plane.resources.catalog import load_resources
from control_plane.resources.render import RenderError

# One module per command group; each adds its subparsers and sets `handler`.
COMMAND_MODULES = (
    resources,
    models,
    datasets,
    ingest,
    query,
    search,
    evaluate,
    service,
    intents,
    snapshot,
    jobs,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="biohybrid",
        description="Administer the biomedical hybrid retrieval stack: install index templates and search "
        "pipelines into OpenSearch and check them for drift, register the served models in ml-commons, "
        "ingest documents (dataset ids, or your PDF, JATS, ClinicalTrials.gov, MEDLINE and BEIR files), "
        "query, evaluate, and back up; report the node's state.",
        epilog=f"Configuration: packaged defaults, then --config FILE (or ${ENV_CONFIG_FILE}), then "
        "BIOHYBRID__SECTION__KEY=value variables. The local Maven-built node needs "
        "--config control_plane/config/local.yaml (k-NN engine lucene). The guide: docs/index.md in the "
        f"checkout, served as a site by `make docs` (mkdocs serve, {SITE}); each command's --help names "
        "its page.",
    )
    parser.add_argument("--config", help=f"YAML settings file (default: ${ENV_CONFIG_FILE} if set)")
    parser.add_argument("--log-level", default="INFO", help="logging level (default: INFO)")
    parser.add_argument("--log-format", choices=["json", "text"], default="json", help="log line format")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="show the traceback of an expected failure (default: one line naming the cause and the fix)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for module in COMMAND_MODULES:
        module.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A refused connection is said once, by the command's own error line (--debug shows every attempt).
    configure_logging(args.log_level, args.log_format, debug=args.debug, quiet_clients=not args.debug)
    try:
        settings = load_settings(args.config)
        load_resources(settings)
    except (ConfigError, RenderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        handler: Callable[[Settings, argparse.Namespace], int] = args.handler
        return handler(settings, args)
    except (EngineUnavailableError, ModelsNotReadyError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except OpenSearchSSLError as exc:
        print(
            f"error: TLS with OpenSearch at {settings.opensearch.url} failed ({exc.info}): set "
            "opensearch.ca_certs to the PEM bundle of the CA that signed the cluster's certificate",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    except OpenSearchConnectionError:
        print(
            f"error: cannot reach OpenSearch at {settings.opensearch.url}; start the local node with "
            "`make run` (or ansible-playbook ansible/site.yml) or set opensearch.url",
            file=sys.stderr,
        )
        return EXIT_CLUSTER
    except AuthenticationException:
        print(
            f"error: OpenSearch at {settings.opensearch.url} refused the credentials (HTTP 401): check "
            "opensearch.username and the password in opensearch.password_file",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    except TransportError as exc:
        print(f"error: {refusal_line(exc, settings)}", file=sys.stderr)
        return EXIT_CLUSTER
    except BiohybridError as exc:  # any other expected failure: its message names the cause and the fix
        if args.debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return expected_failure_exit(exc)


# What ml-commons answers when a remote model's connector gets no answer from its endpoint.
_REMOTE_MODEL_UNREACHABLE = "Error communicating with remote model"


def refusal_line(exc: TransportError, settings: Settings) -> str:
    """The error line for a request OpenSearch refused: when the refusal is ml-commons failing to reach
    a model (the inference service is down), that service and how to start it; else OpenSearch's own
    reason."""
    if _REMOTE_MODEL_UNREACHABLE in str(exc):
        info = exc.info if isinstance(exc.info, dict) else {}
        error = info.get("error")
        reason = error.get("reason") if isinstance(error, dict) else None
        return (
            f"OpenSearch could not reach the models it calls (the inference service at "
            f"{settings.models.service_url}): start it with `make service-up` (or `biohybrid service "
            f"start`); OpenSearch said: {reason or exc.error}"
        )
    return f"OpenSearch refused the request: {exc}"


def expected_failure_exit(error: BiohybridError) -> int:
    """The exit code of an expected failure: the cluster or a service is unavailable (3), a request or
    configuration the user can fix (2), anything else the project raised (1)."""
    if isinstance(error, UnavailableError):
        return EXIT_CLUSTER
    if isinstance(error, ClientError | FileNotFoundError):
        return EXIT_CONFIG
    return 1


if __name__ == "__main__":
    sys.exit(main())
