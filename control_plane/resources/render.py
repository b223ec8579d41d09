"""A small renderer for the JSON resource files.

A string value that is exactly ``"{{ name }}"`` becomes the parameter's value with its own type (so a
dimension stays an integer and a weight list stays a list); a placeholder inside a longer string is
replaced by its text. Unknown placeholders are errors, so a typo cannot reach the cluster.

A key ``"<<"`` merges its rendered value (a mapping, possibly empty) into the object that holds it, so a
setting can add keys or leave them out entirely (e.g. ``index.sparse``, which only a SEISMIC index
carries: a node without neural-search refuses the setting even when false).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from control_plane.errors import BiohybridError

MERGE_KEY = "<<"
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_.]+)\s*\}\}")


class RenderError(BiohybridError, ValueError):
    """A placeholder has no parameter; the message names the placeholder and the file."""


def render(template: Any, params: Mapping[str, Any], source: str = "<template>") -> Any:
    """Return a copy of ``template`` with every placeholder replaced from ``params``."""
    if isinstance(template, dict):
        rendered = {key: render(value, params, source) for key, value in template.items() if key != MERGE_KEY}
        if MERGE_KEY in template:
            extra = render(template[MERGE_KEY], params, source)
            if not isinstance(extra, Mapping):
                raise RenderError(f"{source}: '{MERGE_KEY}' must render to a mapping, got {extra!r}")
            clash = sorted(set(extra) & set(rendered))
            if clash:
                raise RenderError(f"{source}: '{MERGE_KEY}' would overwrite {', '.join(clash)}")
            rendered.update(extra)
        return rendered
    if isinstance(template, list):
        return [render(item, params, source) for item in template]
    if isinstance(template, str):
        return _render_string(template, params, source)
    return template


def _render_string(text: str, params: Mapping[str, Any], source: str) -> Any:
    whole = _PLACEHOLDER.fullmatch(text.strip())
    if whole:
        return _lookup(whole.group(1), params, source)
    return _PLACEHOLDER.sub(lambda m: str(_lookup(m.group(1), params, source)), text)


def _lookup(name: str, params: Mapping[str, Any], source: str) -> Any:
    if name not in params:
        known = ", ".join(sorted(params))
        raise RenderError(f"{source}: unknown placeholder '{{{{ {name} }}}}'; known parameters: {known}")
    return params[name]


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten nested mappings into dotted keys: {"a": {"b": 1}} -> {"a.b": 1}."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{dotted}."))
        else:
            flat[dotted] = value
    return flat
