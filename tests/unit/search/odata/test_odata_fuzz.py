"""Fuzzing the $filter grammar: any text either parses or fails with an ODataError whose position lies
inside the text (never another exception), and every expression the grammar can express survives a
round trip through its OData text."""

from __future__ import annotations

import string
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

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
from control_plane.search.odata.syntax import ODataError, parse_filter

KEYWORD_FIELDS = [name for name, field in FILTERABLE.items() if field.kind == "keyword"]
TOKENS = [
    "source",
    "intent",
    "publication_date",
    "eq",
    "ne",
    "gt",
    "in",
    "and",
    "or",
    "not",
    "(",
    ")",
    ",",
    "'pmc'",
    "'it''s'",
    "2020-01-01",
    "12",
    "'",
    "tenant_id",
    "@",
    " ",
]


def _text(value: Value) -> str:
    return value.isoformat() if isinstance(value, date) else "'" + value.replace("'", "''") + "'"


def odata(expression: Expression) -> str:
    """The OData text of an expression, fully parenthesised (the test's own printer)."""
    if isinstance(expression, Comparison):
        return f"{expression.field} {expression.comparator} {_text(expression.value)}"
    if isinstance(expression, Membership):
        return f"{expression.field} in ({', '.join(_text(v) for v in expression.values)})"
    if isinstance(expression, Both):
        return f"({odata(expression.left)}) and ({odata(expression.right)})"
    if isinstance(expression, Either):
        return f"({odata(expression.left)}) or ({odata(expression.right)})"
    assert isinstance(expression, Negated)
    return f"not ({odata(expression.operand)})"


words = st.text(alphabet=string.ascii_letters + string.digits + "' -_,()", max_size=12)
keyword_comparisons = st.builds(
    Comparison, st.sampled_from(KEYWORD_FIELDS), st.sampled_from(["eq", "ne"]), words
)
date_comparisons = st.builds(
    Comparison,
    st.just("publication_date"),
    st.sampled_from(["eq", "ne", "gt", "ge", "lt", "le"]),
    st.dates(min_value=date(1000, 1, 1)),
)
memberships = st.builds(
    Membership, st.sampled_from(KEYWORD_FIELDS), st.lists(words, min_size=1, max_size=4).map(tuple)
)
expressions = st.recursive(
    keyword_comparisons | date_comparisons | memberships,
    lambda inner: st.builds(Both, inner, inner) | st.builds(Either, inner, inner) | st.builds(Negated, inner),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_every_expression_round_trips_through_its_text(expression: Expression) -> None:
    assert parse_filter(odata(expression)) == expression


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=12).map(" ".join) | st.text(max_size=40))
def test_any_text_parses_or_names_a_position_inside_it(text: str) -> None:
    try:
        parse_filter(text)
    except ODataError as error:
        assert 1 <= error.position <= max(len(text.rstrip()), 0) + 1, (text, error.position)
        assert error.option == "$filter" and str(error.position) in str(error)
