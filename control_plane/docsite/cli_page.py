"""The CLI reference, rendered from the ``biohybrid`` parser itself: each command's ``--help`` as the
terminal prints it, so the page and the command can never disagree."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from functools import partial
from typing import cast

HELP_WIDTH = 100


def subcommands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every command and sub-command parser under ``parser``, depth first, in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
                yield child
                yield from subcommands(child)


def help_text(parser: argparse.ArgumentParser, width: int = HELP_WIDTH) -> str:
    """``parser``'s help at a fixed width (the terminal's would make the page differ per build)."""
    original = parser.formatter_class
    factory = cast("Callable[..., argparse.HelpFormatter]", original)  # every HelpFormatter takes width
    parser.formatter_class = partial(factory, width=width)
    try:
        return parser.format_help()
    finally:
        parser.formatter_class = original


def cli_markdown(parser: argparse.ArgumentParser) -> str:
    """A section per command: its name as the heading, its help verbatim."""
    lines: list[str] = []
    for command in [parser, *subcommands(parser)]:
        lines += [f"### {command.prog}", "", "```text", help_text(command).rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"
