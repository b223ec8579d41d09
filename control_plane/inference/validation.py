"""Check request bodies before they reach a queue; every refusal names the field and the limit.

Shapes follow ml-commons' built-in connector functions: ``connector.pre_process.default.embedding`` sends
``{"input": [texts]}`` and ``connector.pre_process.default.rerank`` sends
``{"query": text, "documents": [texts], "top_n": n}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BAD_REQUEST = 400
TOO_LARGE = 413


class RequestError(ValueError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Limits:
    max_items: int
    max_chars: int


@dataclass(frozen=True)
class RerankRequest:
    query: str
    documents: list[str]
    top_n: int | None


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise RequestError(BAD_REQUEST, "request body must be a JSON object")
    return body


def _text(value: Any, field: str, limits: Limits) -> str:
    if not isinstance(value, str):
        raise RequestError(BAD_REQUEST, f"'{field}' must be a string, got {type(value).__name__}")
    if not value.strip():
        raise RequestError(BAD_REQUEST, f"'{field}' is empty")
    if len(value) > limits.max_chars:
        raise RequestError(
            TOO_LARGE, f"'{field}' has {len(value)} characters; the limit is {limits.max_chars}"
        )
    return value


def _texts(value: Any, field: str, limits: Limits) -> list[str]:
    if value is None:
        raise RequestError(BAD_REQUEST, f"'{field}' is required: a list of strings")
    if not isinstance(value, list):
        raise RequestError(BAD_REQUEST, f"'{field}' must be a list of strings, got {type(value).__name__}")
    if not value:
        raise RequestError(BAD_REQUEST, f"'{field}' is an empty list")
    if len(value) > limits.max_items:
        raise RequestError(TOO_LARGE, f"'{field}' has {len(value)} items; the limit is {limits.max_items}")
    return [_text(item, f"{field}[{i}]", limits) for i, item in enumerate(value)]


def texts_request(body: Any, limits: Limits) -> list[str]:
    """``{"input": [str, ...]}`` → the texts."""
    return _texts(_object(body).get("input"), "input", limits)


def rerank_request(body: Any, limits: Limits) -> RerankRequest:
    """``{"query": str, "documents": [str, ...], "top_n": int?}`` → a RerankRequest."""
    data = _object(body)
    if "query" not in data:
        raise RequestError(BAD_REQUEST, "'query' is required: a string")
    query = _text(data["query"], "query", limits)
    documents = _texts(data.get("documents"), "documents", limits)
    top_n = data.get("top_n")
    if top_n is not None and (isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1):
        raise RequestError(BAD_REQUEST, f"'top_n' must be a positive integer, got {top_n!r}")
    return RerankRequest(query=query, documents=documents, top_n=top_n)
