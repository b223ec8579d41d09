"""What every command module shares: exit codes and the subparsers type."""

from __future__ import annotations

import argparse
from typing import TypeAlias

EXIT_DRIFT = 1
EXIT_CONFIG = 2
EXIT_CLUSTER = 3
EXIT_MODEL = 4  # a model could not be used: gpu_unavailable, circuit_open (control_plane/resilience)

# The type of `parser.add_subparsers()` (a string: argparse's class is not subscriptable at run time).
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
