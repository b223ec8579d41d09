"""Check request bodies before they reach a queue; every refusal names the field and the limit.

Shapes follow ml-commons' built-in connector functions: ``connector.pre_process.default.embedding`` sends
``{"input": [texts]}`` and ``connector.pre_process.default.rerank`` sends
``{"query": text, "documents": [texts], "top_n": n}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from control_plane.errors import ClientError
from control_plane.words.visible import has_visible_character

BAD_REQUEST = 400
TOO_LARGE = 413


class RequestError(ClientError, ValueError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.http_status = status
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
    # Blend mode (control_plane/fusion/rerank_blend.py), when either is given: the model scores only the
    # first ``depth`` documents (they arrive in first-stage order) and its order is blended with theirs
    # by ``model_weight``; the rest follow in first-stage order. Neither: raw model scores for all.
    depth: int | None = None
    model_weight: float | None = None
    # The caller's budget (from the request's arrival): past it the service gives up scoring (the
    # unscored pairs are shed) and answers the documents' own order, 200, as it does when the model's
    # queue is full or the model is not loaded (control_plane/inference/app.py: the rerank fallback).
    budget_ms: int | None = None
    # Rerank only on a GPU: on a service that runs the model on CPU the first-stage order is answered at
    # once (fallback gpu_unavailable). The connector sends search.rerank_requires_gpu.
    requires_gpu: bool = False

    @property
    def blended(self) -> bool:
        return self.depth is not None or self.model_weight is not None


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


# In blend mode only the first ``depth`` documents reach the model; the rest are only ranked, so a
# request may carry this many times max_items (a document-level window is depth x components hits).
BLEND_DOCUMENTS_FACTOR = 8


def _texts(value: Any, field: str, limits: Limits, max_items: int | None = None) -> list[str]:
    max_items = max_items or limits.max_items
    if value is None:
        raise RequestError(BAD_REQUEST, f"'{field}' is required: a list of strings")
    if not isinstance(value, list):
        raise RequestError(BAD_REQUEST, f"'{field}' must be a list of strings, got {type(value).__name__}")
    if not value:
        raise RequestError(BAD_REQUEST, f"'{field}' is an empty list")
    if len(value) > max_items:
        raise RequestError(TOO_LARGE, f"'{field}' has {len(value)} items; the limit is {max_items}")
    return [_text(item, f"{field}[{i}]", limits) for i, item in enumerate(value)]


def texts_request(body: Any, limits: Limits) -> list[str]:
    """``{"input": [str, ...]}`` → the texts."""
    return _texts(_object(body).get("input"), "input", limits)


INPUT_TYPES: tuple[str, ...] = ("document", "query")


@dataclass(frozen=True)
class EmbeddingsRequest:
    texts: list[str]
    # "query" prepends the model's query instruction (BGE's); "document" (the default) encodes as is.
    input_type: str = "document"

    @property
    def as_query(self) -> bool:
        return self.input_type == "query"


def embeddings_request(body: Any, limits: Limits) -> EmbeddingsRequest:
    """``{"input": [str, ...], "input_type": "document"|"query"?}`` → an EmbeddingsRequest."""
    data = _object(body)
    input_type = data.get("input_type", "document")
    if input_type not in INPUT_TYPES:
        raise RequestError(
            BAD_REQUEST, f"'input_type' must be one of {', '.join(INPUT_TYPES)}, got {input_type!r}"
        )
    texts = texts_request(data, limits)
    if input_type == "query":  # a question: documents may be anything their source held
        for i, text in enumerate(texts):
            _question(text, f"input[{i}]")
    return EmbeddingsRequest(texts, str(input_type))


def _question(text: str, field: str) -> None:
    if not has_visible_character(text):
        raise RequestError(BAD_REQUEST, f"'{field}' has no visible character: send the words to search for")


def _positive_int(data: dict[str, Any], field: str) -> int | None:
    value = data.get(field)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise RequestError(BAD_REQUEST, f"'{field}' must be a positive integer, got {value!r}")
    return value


def rerank_request(body: Any, limits: Limits) -> RerankRequest:
    """``{"query": str, "documents": [str, ...], "top_n": int?, "depth": int?, "model_weight": float?,
    "budget_ms": int?, "requires_gpu": bool?}`` → a RerankRequest."""
    data = _object(body)
    if "query" not in data:
        raise RequestError(BAD_REQUEST, "'query' is required: a string")
    query = _text(data["query"], "query", limits)
    _question(query, "query")
    depth = _positive_int(data, "depth")
    blended = depth is not None or data.get("model_weight") is not None
    if depth is not None and depth > limits.max_items:
        raise RequestError(TOO_LARGE, f"'depth' is {depth}; the limit is {limits.max_items} scored documents")
    raw = data.get("documents")
    if isinstance(raw, list):
        empty = [i for i, item in enumerate(raw) if isinstance(item, str) and not item.strip()]
        if empty:
            raise RequestError(
                BAD_REQUEST,
                f"'documents[{empty[0]}]' is empty ({len(empty)} of {len(raw)} documents): OpenSearch's "
                "rerank processor sends each hit's `text` from _source, so a search through a -rerank "
                'pipeline must keep `text` in its _source (e.g. "_source": ["doc_id", "text"])',
            )
    documents = _texts(
        raw,
        "documents",
        limits,
        limits.max_items * BLEND_DOCUMENTS_FACTOR if blended else limits.max_items,
    )
    weight = data.get("model_weight")
    if weight is not None and (
        isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 <= weight <= 1
    ):
        raise RequestError(BAD_REQUEST, f"'model_weight' must be a number from 0 to 1, got {weight!r}")
    return RerankRequest(
        query=query,
        documents=documents,
        top_n=_positive_int(data, "top_n"),
        depth=depth,
        model_weight=None if weight is None else float(weight),
        budget_ms=_positive_int(data, "budget_ms"),
        requires_gpu=_flag(data, "requires_gpu"),
    )


def _flag(data: dict[str, Any], field: str) -> bool:
    value = data.get(field, False)
    if not isinstance(value, bool):
        raise RequestError(BAD_REQUEST, f"'{field}' must be true or false, got {value!r}")
    return value
