"""Tolerant navigation of parsed JSON: missing keys and wrong types give empty values, never errors.

Registry JSON omits whole modules when a study has no data for them, so readers walk it with these
instead of chains of ``.get`` and ``isinstance`` checks.
"""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]


def get(node: Any, *keys: str) -> Any:
    """The value at the key path, or ``None`` as soon as a step is missing or not an object."""
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def text(node: Any, *keys: str) -> str:
    """The scalar at ``keys`` as a stripped string; booleans read ``Yes``/``No``; anything else ``""``."""
    value = get(node, *keys)
    if value is None or isinstance(value, dict | list):
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    return str(value).strip()


def objects(node: Any, *keys: str) -> list[JsonObject]:
    """The objects of the list at ``keys`` (non-objects skipped); ``[]`` when it is not a list."""
    value = get(node, *keys)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def strings(node: Any, *keys: str) -> tuple[str, ...]:
    """The list at ``keys`` as stripped strings; ``()`` when it is not a list."""
    value = get(node, *keys)
    return tuple(str(item).strip() for item in value if item is not None) if isinstance(value, list) else ()
