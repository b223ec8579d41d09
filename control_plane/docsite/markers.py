"""Generated sections of a page: a line ``<!-- generated: NAME -->`` is replaced, when the site is built,
by what the generator of that name renders from the code (so a reference page holds no copy that can
go stale). An unknown name is an error naming the page, so a typo cannot publish an empty section."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from control_plane.errors import BiohybridError

MARKER: Final = re.compile(r"^<!-- generated: (?P<name>[a-z0-9-]+) -->[ \t]*$", re.MULTILINE)


class UnknownGeneratorError(BiohybridError, ValueError):
    """A page names a generator that does not exist."""


def expand_markers(markdown: str, generators: Mapping[str, Callable[[], str]], page: str) -> str:
    """``markdown`` with every marker line replaced by its generator's markdown."""

    def generated(match: re.Match[str]) -> str:
        name = match["name"]
        generator = generators.get(name)
        if generator is None:
            raise UnknownGeneratorError(
                f"{page}: no generator {name!r} (known: {', '.join(sorted(generators))})"
            )
        return generator().rstrip("\n")

    return MARKER.sub(generated, markdown)
