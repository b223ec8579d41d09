"""Parse $filter and $orderby with the grammar in filter.lark, then check the tree against the filterable
fields. Every error is an ODataError naming the 1-based position and the token that was wrong."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from functools import cache, lru_cache
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from control_plane.errors import BadRequestError
from control_plane.search.odata.expression import (
    FILTERABLE,
    SORTABLE,
    Both,
    Comparison,
    Either,
    Expression,
    Membership,
    Negated,
    SortKey,
    Value,
)

MAX_LENGTH = 2000
MAX_DEPTH = 32
"""Deepest nesting of and / or / not a $filter may have: each level becomes a nested bool query, and a
chain of hundreds (495 ``not`` fit in MAX_LENGTH) would outgrow the JSON encoders on the way."""
# How each terminal of the grammar reads in an error message.
_READABLE = {
    "COMPARATOR": "eq, ne, gt, ge, lt, le",
    "DIRECTION": "asc, desc",
    "_AND": "and",
    "_OR": "or",
    "_NOT": "not",
    "_IN": "in",
    "FIELD": "a field name",
    "STRING": "a quoted string",
    "DATE": "a date (YYYY-MM-DD)",
    "NUMBER": "a number",
    "LPAR": "(",
    "RPAR": ")",
    "COMMA": ",",
    "$END": "the end",
}


class ODataError(BadRequestError):
    """A $filter or $orderby that cannot be used; ``position`` is 1-based, ``token`` what stood there."""

    def __init__(self, option: str, message: str, position: int, token: str) -> None:
        super().__init__(f"{option}: {message} at position {position} ({token!r})")
        self.option, self.position, self.token = option, position, token


@cache
def _parser(start: str) -> Lark:
    grammar = resources.files("control_plane.search.odata").joinpath("filter.lark").read_text()
    return Lark(grammar, start=start, parser="lalr", propagate_positions=True)


@lru_cache(maxsize=512)
def parse_filter(text: str) -> Expression:
    """A $filter expression, e.g. ``source eq 'pmc' and publication_date ge 2020-01-01``."""
    tree = _parse("$filter", "filter", text)
    depth = _depth(tree)
    if depth > MAX_DEPTH:
        raise ODataError(
            "$filter",
            f"and / or / not nested {depth} deep; at most {MAX_DEPTH} (a list of values: field in (...))",
            1,
            text[:20],
        )
    return _expression("$filter", tree.children[0])


def _depth(tree: Tree[Token]) -> int:
    """The deepest chain of and / or / not in a parsed filter (iterative: no recursion limit to reach)."""
    deepest, pending = 0, [(tree, 0)]
    while pending:
        node, depth = pending.pop()
        level = depth + (node.data in ("both", "either", "negated"))
        deepest = max(deepest, level)
        pending.extend((child, level) for child in node.children if isinstance(child, Tree))
    return deepest


@lru_cache(maxsize=128)
def parse_orderby(text: str) -> tuple[SortKey, ...]:
    """An $orderby list, e.g. ``publication_date desc, score desc``."""
    tree = _parse("$orderby", "orderby", text)
    nodes = [child for child in tree.children if isinstance(child, Tree)]
    keys = tuple(_sort_key(node) for node in nodes)
    fields = [key.field for key in keys]
    for index, field in enumerate(fields):
        if field in fields[:index]:
            token = nodes[index].children[0]
            assert isinstance(token, Token)
            raise ODataError("$orderby", f"{field} is listed twice", _at(token), field)
    return keys


def _parse(option: str, start: str, text: str) -> Tree[Token]:
    if not text.strip():
        raise ODataError(option, "the expression is empty", 1, text)
    if len(text) > MAX_LENGTH:
        raise ODataError(
            option, f"longer than {MAX_LENGTH} characters", MAX_LENGTH + 1, text[MAX_LENGTH:][:20]
        )
    try:
        return _parser(start).parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(option, text, exc) from None


def _syntax_error(option: str, text: str, exc: UnexpectedInput) -> ODataError:
    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream or 0
        return ODataError(
            option, f"unexpected character; expected {_expected(exc.allowed)}", at + 1, text[at]
        )
    # ``accepts`` (what the parser in that state can really take) is narrower than LALR's ``expected``.
    accepted = getattr(exc, "accepts", None) or getattr(exc, "expected", None) or set()
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        token = exc.token
        return ODataError(option, f"unexpected token; expected {_expected(accepted)}", _at(token), str(token))
    where = len(text.rstrip()) + 1  # the end of input (UnexpectedEOF, or an UnexpectedToken at $END)
    return ODataError(option, f"the expression ends too early; expected {_expected(accepted)}", where, "")


def _expected(names: Iterable[object]) -> str:
    readable = sorted({_READABLE.get(str(name), str(name).strip("_").lower()) for name in names})
    if len(readable) > 1:
        return "one of: " + "; ".join(readable)
    return readable[0] if readable else "something else"


def _expression(option: str, node: Tree[Token] | Token) -> Expression:
    assert isinstance(node, Tree), node  # the grammar gives tokens only inside comparisons and lists
    rule = node.data
    if rule == "both":
        return Both(_expression(option, node.children[0]), _expression(option, node.children[1]))
    if rule == "either":
        return Either(_expression(option, node.children[0]), _expression(option, node.children[1]))
    if rule == "negated":
        return Negated(_expression(option, node.children[0]))
    if rule == "comparison":
        field, comparator, literal = node.children
        assert isinstance(field, Token) and isinstance(comparator, Token) and isinstance(literal, Token)
        name = _field(option, field)
        if FILTERABLE[name].kind == "keyword" and str(comparator) not in ("eq", "ne"):
            raise ODataError(
                option,
                f"{comparator} compares dates; {name} takes eq, ne or in",
                _at(comparator),
                str(comparator),
            )
        return Comparison(name, str(comparator), _value(option, name, literal))  # type: ignore[arg-type]
    if rule == "membership":
        field, *literals = node.children
        assert isinstance(field, Token)
        name = _field(option, field)
        return Membership(
            name, tuple(_value(option, name, lit) for lit in literals if isinstance(lit, Token))
        )
    raise AssertionError(f"grammar rule {rule!r} has no meaning")


def _field(option: str, token: Token) -> str:
    name = str(token)
    if name in FILTERABLE:
        return name
    known = ", ".join(FILTERABLE)
    why = (
        "the tenant comes from the API key and cannot be filtered"
        if name in ("tenant", "tenant_id")
        else f"unknown field; filterable fields are {known}"
    )
    raise ODataError(option, why, _at(token), name)


def _value(option: str, field: str, literal: Token) -> Value:
    kind = FILTERABLE[field].kind
    if kind == "date":
        if literal.type != "DATE":
            raise ODataError(
                option,
                f"{field} compares with a date (YYYY-MM-DD, unquoted)",
                _at(literal),
                str(literal),
            )
        try:
            return date.fromisoformat(str(literal))
        except ValueError:
            raise ODataError(option, "not a calendar date", _at(literal), str(literal)) from None
    if literal.type != "STRING":
        raise ODataError(
            option, f"{field} compares with a quoted string, e.g. 'pmc'", _at(literal), str(literal)
        )
    return str(literal)[1:-1].replace("''", "'")


def _sort_key(node: Tree[Token]) -> SortKey:
    field, *direction = node.children
    assert isinstance(field, Token)
    if str(field) not in SORTABLE:
        raise ODataError(
            "$orderby",
            f"cannot order by this; choose {' or '.join(SORTABLE)}",
            _at(field),
            str(field),
        )
    return SortKey(str(field), str(direction[0]) if direction else "asc")  # type: ignore[arg-type]


def _at(token: Token) -> int:
    """The token's 1-based position in the expression."""
    return (token.start_pos or 0) + 1
