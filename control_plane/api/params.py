"""Requests into SearchSpecs: the JSON body of POST /v1/search, the query string of GET /v1/search,
and the /retrieve shape (query, intent, filters, topK, rerank_enabled)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from control_plane.errors import BadRequestError
from control_plane.search.spec import SearchSpec

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_LIST_PARAMS = ("components", "query_intent")
_FILTER_LISTS = ("source", "section", "intent", "doc_type")
_BOOL_PARAMS = ("rerank", "boosts", "explain", "profile", "highlight", "merge_neighbours")
_INT_PARAMS = ("size", "from", "rank_constant", "rerank_top_n", "candidate_depth")
_PASS_THROUGH = ("fusion_method", "granularity")
# The OData query options, with the parameters each one stands for (giving both is ambiguous).
_ODATA: dict[str, tuple[str, ...]] = {
    "$top": ("size", "k"),
    "$skip": ("from",),
    "$filter": (),
    "$orderby": (),
}


def spec_from_body(body: Any) -> SearchSpec:
    """POST /v1/search: a SearchSpec as JSON; ``k`` is accepted for ``size``."""
    if not isinstance(body, Mapping):
        raise BadRequestError("the body must be a JSON object with at least 'query'")
    data = dict(body)
    if "k" in data:
        if "size" in data:
            raise BadRequestError("give either 'k' or 'size', not both (they are the same: results per page)")
        data["size"] = data.pop("k")
    return SearchSpec.model_validate(data)


def spec_from_query(args: Mapping[str, str]) -> SearchSpec:
    """GET /v1/search?q=...: lists comma-separated, weights as bm25:0.3,splade:0.35,dense:0.35,
    filters as source=, section=, intent=, doc_type=, date_from=, date_to=, and the OData options $filter,
    $orderby, $top (= size) and $skip (= from)."""
    known = {
        "q",
        *_ODATA,
        "k",
        "weights",
        "date_from",
        "date_to",
        *_LIST_PARAMS,
        *_FILTER_LISTS,
        *_BOOL_PARAMS,
        *_INT_PARAMS,
        *_PASS_THROUGH,
    }
    unknown = sorted(set(args) - known)
    if unknown:
        raise BadRequestError(f"unknown query parameter(s) {unknown}; known: {sorted(known)}")
    if not args.get("q"):
        raise BadRequestError("the query parameter 'q' (the query text) is required")
    data: dict[str, Any] = {"query": args["q"]}
    if "k" in args:
        data["size"] = _int("k", args["k"])
    for name in _INT_PARAMS:
        if name in args:
            data[name] = _int(name, args[name])
    for name in _BOOL_PARAMS:
        if name in args:
            data[name] = _bool(name, args[name])
    for name in _LIST_PARAMS:
        if name in args:
            data[name] = _list(args[name])
    for name in _PASS_THROUGH:
        if name in args:
            data[name] = args[name]
    if "weights" in args:
        data["weights"] = _weights(args["weights"])
    filters: dict[str, Any] = {name: _list(args[name]) for name in _FILTER_LISTS if name in args}
    if "date_from" in args or "date_to" in args:
        filters["publication_date"] = {"gte": args.get("date_from"), "lte": args.get("date_to")}
    _odata_options(args, data, filters)
    if filters:
        data["filters"] = filters
    return SearchSpec.model_validate(data)


def _odata_options(args: Mapping[str, str], data: dict[str, Any], filters: dict[str, Any]) -> None:
    """$top, $skip, $filter and $orderby into ``data`` / ``filters`` (the grammar runs when the spec is
    validated: a bad expression is a 400 naming its position and token)."""
    for option, same in _ODATA.items():
        clash = [name for name in same if name in args]
        if option in args and clash:
            raise BadRequestError(f"give either {option!r} or {clash[0]!r}, not both (they are the same)")
    if "$top" in args:
        data["size"] = _int("$top", args["$top"])
    if "$skip" in args:
        data["from"] = _int("$skip", args["$skip"])
    if "$filter" in args:
        filters["expression"] = args["$filter"]
    if "$orderby" in args:
        data["order_by"] = args["$orderby"]


def retrieve_spec(body: Any) -> SearchSpec:
    """POST /retrieve {query, intent, filters, topK, rerank_enabled}."""
    if not isinstance(body, Mapping):
        raise BadRequestError("the body must be a JSON object with at least 'query'")
    allowed = {"query", "intent", "filters", "topK", "rerank_enabled"}
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BadRequestError(f"unknown field(s) {unknown}; /retrieve takes {sorted(allowed)}")
    data: dict[str, Any] = {"query": body.get("query")}
    if body.get("intent"):
        intent = body["intent"]
        data["query_intent"] = [intent] if isinstance(intent, str) else intent
    if "filters" in body:
        data["filters"] = body["filters"]
    if "topK" in body:
        data["size"] = body["topK"]
    if "rerank_enabled" in body:
        data["rerank"] = body["rerank_enabled"]
    return SearchSpec.model_validate(data)


def _int(name: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise BadRequestError(f"query parameter {name!r} must be an integer, got {raw!r}") from None


def _bool(name: str, raw: str) -> bool:
    if raw.lower() in _TRUE:
        return True
    if raw.lower() in _FALSE:
        return False
    raise BadRequestError(f"query parameter {name!r} must be true or false, got {raw!r}")


def _list(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


def _weights(raw: str) -> dict[str, float]:
    weights: dict[str, float] = {}
    for part in _list(raw):
        name, sep, value = part.partition(":")
        if not sep:
            raise BadRequestError(f"weights must look like bm25:0.3,splade:0.35,dense:0.35; got {raw!r}")
        try:
            weights[name.strip()] = float(value)
        except ValueError:
            raise BadRequestError(f"weight for {name!r} is not a number: {value!r}") from None
    return weights
