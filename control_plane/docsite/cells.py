"""Text that goes into a markdown table cell of a generated page."""

from __future__ import annotations

import json
import re
from typing import Any, Final

_CODE_SPAN: Final = re.compile(r"(`+)(.+?)\1")
_PROSE_ESCAPES: Final = {"<": "&lt;", ">": "&gt;", "*": "\\*", "|": "\\|"}


def cell(text: str) -> str:
    """One line for a table cell. Outside code spans, pipes are escaped (they would end the cell) and so
    are the characters markdown would read as HTML or emphasis (``<prefix>-*`` in a description); code
    spans stay as they are (the tables extension does not split a cell at a pipe inside one)."""
    flat = " ".join(text.split())
    parts, last = [], 0
    for match in _CODE_SPAN.finditer(flat):
        parts.append(_prose(flat[last : match.start()]))
        parts.append(match.group(0))
        last = match.end()
    parts.append(_prose(flat[last:]))
    return "".join(parts)


def _prose(text: str) -> str:
    return "".join(_PROSE_ESCAPES.get(char, char) for char in text)


def code(text: str) -> str:
    """Inline code, fenced with more backticks than the text holds (a default like ```"a`b"```)."""
    longest = 0
    current = 0
    for char in text:
        current = current + 1 if char == "`" else 0
        longest = max(longest, current)
    ticks = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{ticks}{padded}{ticks}"


def json_value(value: Any) -> str:
    """A value as JSON (what a YAML settings file or a request body would hold), compact."""
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False, default=str)
