"""Where a chunk's text sits on its pages: the boxes of the typeset lines its offsets overlap.

A document read from a page layout (PDF) carries one :class:`~control_plane.ingestion.documents.LineBox`
per line, in text order. A chunk ``[start, end)`` gets the lines that overlap it, as the JSON object the
chunk index stores (not searched) and ``/v1/search`` returns::

    {"pages": [2, 3], "boxes": [{"page": 2, "x0": 56.7, "top": 88.1, "x1": 290.3, "bottom": 98.1}, ...]}

Pages count from 1; coordinates are PDF points from the page's top-left corner. A box is a whole line,
so a chunk that starts or ends mid-line gets that whole line's box.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import Any

from control_plane.ingestion.documents import LineBox

_DECIMALS = 2


def overlapping_lines(lines: Sequence[LineBox], start: int, end: int) -> list[LineBox]:
    """The lines whose range overlaps ``[start, end)``; ``lines`` in text order, ranges equal or disjoint."""
    if start >= end:
        return []
    first = bisect.bisect_right(lines, start, key=lambda line: line.end)
    selected: list[LineBox] = []
    for line in lines[first:]:
        if line.start >= end:
            break
        if line.end > start:
            selected.append(line)
    return selected


def layout_object(lines: Iterable[LineBox]) -> dict[str, Any] | None:
    """The stored form of some lines (``None`` when there are none)."""
    boxes = [
        {
            "page": line.page,
            "x0": round(line.x0, _DECIMALS),
            "top": round(line.top, _DECIMALS),
            "x1": round(line.x1, _DECIMALS),
            "bottom": round(line.bottom, _DECIMALS),
        }
        for line in lines
    ]
    if not boxes:
        return None
    return {"pages": sorted({box["page"] for box in boxes}), "boxes": boxes}


def span_layout(lines: Sequence[LineBox], start: int, end: int) -> dict[str, Any] | None:
    """The layout object of the text ``[start, end)``; ``None`` without a page layout."""
    return layout_object(overlapping_lines(lines, start, end)) if lines else None


def merge_layouts(layouts: Iterable[dict[str, Any] | None]) -> dict[str, Any] | None:
    """One layout for several chunks (merged neighbours): their boxes in order, repeats dropped."""
    boxes: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for layout in layouts:
        for box in (layout or {}).get("boxes", []):
            key = tuple(sorted(box.items()))
            if key not in seen:
                seen.add(key)
                boxes.append(dict(box))
    if not boxes:
        return None
    return {"pages": sorted({int(box["page"]) for box in boxes}), "boxes": boxes}
