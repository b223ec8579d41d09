"""Markdown tables: one helper for every report."""

from __future__ import annotations

from collections.abc import Sequence


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None
) -> list[str]:
    """The table's lines: header, separator, one line per row (cells as given, already formatted).
    ``align`` has one letter per column, "l" (default) or "r" (numbers that line up on the right)."""
    for number, row in enumerate(rows, start=1):
        if len(row) != len(header):
            raise ValueError(f"row {number} has {len(row)} cells for {len(header)} columns: {list(row)}")
    alignment = align if align is not None else "l" * len(header)
    if len(alignment) != len(header) or set(alignment) - {"l", "r"}:
        raise ValueError(f"align {alignment!r}: one 'l' or 'r' per column, {len(header)} columns")
    separator = "|" + "|".join("---:" if a == "r" else "---" for a in alignment) + "|"
    lines = ["| " + " | ".join(header) + " |", separator]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]
