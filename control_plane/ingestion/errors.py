"""The error bulk callers log and skip: which file, where in it, and why."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from control_plane.errors import BiohybridError
from control_plane.ingestion.documents import Document

_LINE = re.compile(r"\bline (\d+)\b")


class ParseError(BiohybridError):
    """A malformed file or record.

    Parsers *yield* these from their tolerant ``iter_*`` generators so one bad record does not stop a bulk
    run, and *raise* them from the strict ``parse_*`` generators. ``location`` is a record index, an id
    (``PMID 123``), a line/column or an XPath-ish place (``/article/front``).
    """

    def __init__(self, path: Path | str, location: str, reason: str) -> None:
        super().__init__(f"{path}: {location}: {reason}")
        self.path = Path(path)
        self.location = location
        self.reason = reason

    @property
    def line(self) -> int | None:
        """The line number the location names (``line 12``, ``line 12, column 5``), or None."""
        match = _LINE.search(self.location)
        return int(match.group(1)) if match else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParseError):
            return NotImplemented
        return (self.path, self.location, self.reason) == (other.path, other.location, other.reason)

    def __hash__(self) -> int:
        return hash((self.path, self.location, self.reason))


def raise_errors(items: Iterable[Document | ParseError]) -> Iterator[Document]:
    """Strict view of a tolerant parser stream: documents pass through, the first error is raised."""
    for item in items:
        if isinstance(item, ParseError):
            raise item
        yield item
