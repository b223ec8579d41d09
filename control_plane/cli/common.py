"""What every command module shares: exit codes and the resources as they should be now."""

from __future__ import annotations

import argparse
from typing import TypeAlias

from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.mlcommons.registry import deployed_model_ids
from control_plane.resources.catalog import Resource, load_resources

EXIT_DRIFT = 1
EXIT_CONFIG = 2
EXIT_CLUSTER = 3

# The type of `parser.add_subparsers()` (a string: argparse's class is not subscriptable at run time).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def current_resources(client: OpenSearch, settings: Settings) -> list[Resource]:
    """The resources as they should be now: with the ids of whichever models are deployed."""
    return load_resources(settings, deployed_model_ids(client, settings))
