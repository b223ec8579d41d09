"""Compare a resource as the repository renders it with what the cluster returns.

OpenSearch echoes settings back as strings under ``index.*`` with its own key order, so both sides
are flattened to dotted paths first, with settings leaves stringified; everything else must match
exactly. Keys the cluster has and the repository does not are drift too (a hand-added processor).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from control_plane.resources.render import flatten

_ABSENT = "<absent>"


@dataclass(frozen=True)
class Difference:
    path: str
    expected: str
    actual: str

    def __str__(self) -> str:
        return f"{self.path}: repository {self.expected} != cluster {self.actual}"


def normalise(body: dict[str, Any]) -> dict[str, str]:
    """Flatten a resource body to ``{dotted.path: json_text}`` with OpenSearch's settings conventions."""
    flat: dict[str, str] = {}
    for path, value in flatten(body).items():
        if ".settings." in f".{path}.":
            flat[_settings_path(path)] = _settings_leaf(value)
        else:
            flat[path] = json.dumps(value, sort_keys=True)
    return flat


def diff(expected: dict[str, Any], actual: dict[str, Any] | None) -> list[Difference]:
    """Differences between the repository's body and the cluster's (``None``: absent from the cluster)."""
    if actual is None:
        return [Difference("(resource)", "present", "missing")]
    want, have = normalise(expected), normalise(actual)
    return [
        Difference(path, want.get(path, _ABSENT), have.get(path, _ABSENT))
        for path in sorted(want.keys() | have.keys())
        if want.get(path) != have.get(path)
    ]


def _settings_path(path: str) -> str:
    head, _, tail = path.partition("settings.")
    tail = tail.removeprefix("index.")
    return f"{head}settings.index.{tail}"


def _settings_leaf(value: Any) -> str:
    if isinstance(value, bool):
        return json.dumps("true" if value else "false")
    if isinstance(value, list):
        return json.dumps([str(v) for v in value])
    return json.dumps(str(value))
