"""A parsed $filter as one OpenSearch filter clause, built from the same term / terms / range clauses as
the JSON API's `filters` (search/request.py ANDs it after the tenant, so it can only narrow a search)."""

from __future__ import annotations

from datetime import date
from typing import Any

from control_plane.search.odata.expression import (
    FILTERABLE,
    Both,
    Comparison,
    Either,
    Expression,
    Membership,
    Negated,
    Value,
)

_RANGE = {"gt": "gt", "ge": "gte", "lt": "lt", "le": "lte"}


def filter_clause(expression: Expression) -> dict[str, Any]:
    if isinstance(expression, Comparison):
        return _comparison(expression)
    if isinstance(expression, Membership):
        field = FILTERABLE[expression.field].index_field
        return {"terms": {field: [_json(v) for v in expression.values]}}
    if isinstance(expression, Both):
        return {"bool": {"filter": [filter_clause(expression.left), filter_clause(expression.right)]}}
    if isinstance(expression, Either):
        return {
            "bool": {
                "should": [filter_clause(expression.left), filter_clause(expression.right)],
                "minimum_should_match": 1,
            }
        }
    if isinstance(expression, Negated):
        return {"bool": {"must_not": [filter_clause(expression.operand)]}}
    raise TypeError(f"not a $filter expression: {expression!r}")


def _comparison(comparison: Comparison) -> dict[str, Any]:
    field = FILTERABLE[comparison.field].index_field
    value = _json(comparison.value)
    if comparison.comparator == "eq":
        return {"term": {field: value}}
    if comparison.comparator == "ne":
        return {"bool": {"must_not": [{"term": {field: value}}]}}
    return {"range": {field: {_RANGE[comparison.comparator]: value}}}


def _json(value: Value) -> str:
    return value.isoformat() if isinstance(value, date) else value
