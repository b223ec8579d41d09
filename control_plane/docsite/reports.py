"""The committed reports as site pages: a report names its figures by relative path, and a few reports'
figures were never committed. Such an image becomes a visible note instead of a broken link, so the site
still builds strictly and the reader sees what is missing."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

_IMAGE: Final = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<target>[^)\s]+)\)")


def uncommitted_figures_noted(markdown: str, exists: Callable[[str], bool]) -> str:
    """``markdown`` with each relative image whose file ``exists`` denies replaced by a note naming it."""

    def noted(match: re.Match[str]) -> str:
        target = match["target"]
        if "://" in target or exists(target):
            return match.group(0)
        return f"*(figure `{target}` was not committed with this report)*"

    return _IMAGE.sub(noted, markdown)
