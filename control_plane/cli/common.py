"""What every command module shares: exit codes, the subparsers type and where each command's guide is."""

from __future__ import annotations

import argparse
from typing import TypeAlias

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
