"""The pages of mkdocs.yml's ``nav`` in reading order: the order the runnable examples run in, so a page
may rely on what an earlier page's examples did (an ingest before a query of that index)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def nav_pages(nav: Sequence[Any]) -> list[str]:
    """Every page path of a nav (strings, ``{title: page}`` and ``{title: [sections]}``), depth first."""
    pages: list[str] = []
    for entry in nav:
        if isinstance(entry, str):
            pages.append(entry)
        elif isinstance(entry, Mapping):
            for value in entry.values():
                pages += nav_pages(value) if isinstance(value, list) else [str(value)]
        else:
            raise ValueError(f"a nav entry is a page or a titled page or section, not {entry!r}")
    return pages
