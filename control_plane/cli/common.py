"""What every command module shares: exit codes, the subparsers type and where each command's guide is."""

from __future__ import annotations

import argparse
from typing import TypeAlias

from control_plane.priority import BULK_NICE

EXIT_DRIFT = 1
EXIT_CONFIG = 2
EXIT_CLUSTER = 3
EXIT_MODEL = 4  # a model could not be used: gpu_unavailable, circuit_open (control_plane/resilience)

SITE = "http://127.0.0.1:8000/"  # where `mkdocs serve` (make docs) serves the guide


def guide(page: str) -> str:
    """A command's epilog: the guide page that explains it (docs/, rendered by ``mkdocs serve``)."""
    folder, _, name = page.rpartition("/")
    url = (
        SITE
        + (f"{folder}/" if folder else "")
        + ("" if name == "index.md" else name.removesuffix(".md") + "/")
    )
    return f"Guide: docs/{page} ({url} under `make docs`, which runs mkdocs serve)."


# The type of `parser.add_subparsers()` (a string: argparse's class is not subscriptable at run time).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def nice_level(text: str) -> int:
    """--nice: a niceness increment from 0 (the searches' own priority) to 19 (the lowest)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--nice {text!r}: write a whole number from 0 to 19") from None
    if not 0 <= value <= 19:
        raise argparse.ArgumentTypeError(f"--nice {value}: write a whole number from 0 to 19")
    return value


def add_nice_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--nice",
        type=nice_level,
        default=BULK_NICE,
        help="lower this command's CPU priority by a niceness increment (0 to 19; default "
        f"{BULK_NICE}), so its encoding yields the cores to searches served from this machine (measured "
        "on 2 cores: no gain, since OpenSearch's own indexing of the writes is not lowered)",
    )
