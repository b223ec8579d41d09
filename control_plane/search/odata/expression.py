"""What a parsed $filter or $orderby is: small immutable trees, checked against the filterable fields.
The tenant is not among them: it comes from the API key and is ANDed in front of every expression."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

Comparator = Literal["eq", "ne", "gt", "ge", "lt", "le"]
Value = str | date


@dataclass(frozen=True)
class FilterField:
    index_field: str
    kind: Literal["keyword", "date"]


# OData name -> the chunk mapping's field (the same fields the JSON API's `filters` lists use).
FILTERABLE: dict[str, FilterField] = {
    "source": FilterField("source", "keyword"),
    "doc_type": FilterField("doc_type", "keyword"),
    "section": FilterField("section", "keyword"),
    "intent": FilterField("intent_hint", "keyword"),
    "publication_date": FilterField("publication_date", "date"),
}
SORTABLE = ("score", "publication_date")


@dataclass(frozen=True)
class Comparison:
    field: str
    comparator: Comparator
    value: Value


@dataclass(frozen=True)
class Membership:
    field: str
    values: tuple[Value, ...]


@dataclass(frozen=True)
class Both:
    left: Expression
    right: Expression


@dataclass(frozen=True)
class Either:
    left: Expression
    right: Expression


@dataclass(frozen=True)
class Negated:
    operand: Expression


Expression = Comparison | Membership | Both | Either | Negated


@dataclass(frozen=True)
class SortKey:
    """One $orderby key. ``score`` is the fused (and routed) relevance order; OData's default is asc."""

    field: Literal["score", "publication_date"]
    direction: Literal["asc", "desc"] = "asc"
