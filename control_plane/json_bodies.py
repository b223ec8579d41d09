"""A request body parsed, or refused with a BadRequestError that names what is wrong (the control API and the
inference service read bodies through here, so neither answers a hostile body with a 500): invalid UTF-8,
nesting deeper than any request needs, NaN or Infinity (not JSON, though Python's parser takes them), and
lone surrogates (which no index or model can encode)."""

from __future__ import annotations

import json
import re
from typing import Any, Final

from control_plane.errors import BadRequestError

MAX_DEPTH: Final = 32
"""Deepest array/object nesting accepted: the deepest request either service takes (an OData filter, a
search pipeline's request with its bool clauses) needs well under that."""

# A string, or an unclosed one to the end of the body: possessive, so no position is scanned twice (the
# earlier form, which could only match a closed string, retried from every quote of an unclosed one: 12 KB
# of \" pairs held the interpreter for a second, 100 KB for about a minute).
_STRING_OR_BRACKET: Final = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)
# A surrogate code point (U+D800-U+DFFF) can only enter a parsed body through a \uDXXX escape: UTF-8
# cannot carry one. Bodies without such an escape skip the walk over every string (0.5 ms on a route
# request of 50 hits).
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")


def decode_json(data: bytes) -> Any:
    """Parse a body, or raise BadRequestError naming what is wrong with it."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequestError(
            f"the body is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        ) from None
    if nesting_depth(text, stop_past=MAX_DEPTH) > MAX_DEPTH:
        raise BadRequestError(
            f"the body nests arrays and objects more than {MAX_DEPTH} deep; at most {MAX_DEPTH} are accepted"
        )
    try:
        value = json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise BadRequestError(f"the body is not valid JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(value)
    return value


def nesting_depth(text: str, stop_past: int | None = None) -> int:
    """The deepest bracket nesting outside strings: one pass, linear in the body, constant memory, no
    recursion. ``stop_past``: stop counting once the depth passes it (the answer is then that depth)."""
    deepest = depth = 0
    for token in _STRING_OR_BRACKET.finditer(text):
        bracket = token.group()
        if bracket[0] == '"':
            continue
        depth += 1 if bracket in "[{" else -1
        if depth > deepest:
            deepest = depth
            if stop_past is not None and deepest > stop_past:
                break
    return deepest


def _not_json(name: str) -> float:
    raise BadRequestError(f"the body holds {name}, which is not a JSON number: send a finite number")


def _refuse_lone_surrogates(value: Any) -> None:
    found = lone_surrogate(value)
    if found is not None:
        raise BadRequestError(
            f"the body holds a lone surrogate (\\u{ord(found):04x}) in a string: send text as valid UTF-16 "
            "pairs or plain UTF-8"
        )


def lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in any string (key or value) of parsed JSON, or None: JSON's ``\\udXXX``
    escapes may decode to one, valid JSON that no UTF-8 can carry (iterative: no recursion limit)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return item[exc.start]
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None
