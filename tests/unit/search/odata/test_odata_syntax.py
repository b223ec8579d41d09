"""The $filter and $orderby grammar: trees for valid expressions, and errors that name the position
(1-based) and the token for invalid ones."""

from __future__ import annotations

from datetime import date

import pytest

from control_plane.search.odata.expression import Both, Comparison, Either, Membership, Negated, SortKey
from control_plane.search.odata.syntax import ODataError, parse_filter, parse_orderby


def test_a_comparison_of_each_kind() -> None:
    assert parse_filter("source eq 'pmc'") == Comparison("source", "eq", "pmc")
    assert parse_filter("intent ne 'ae'") == Comparison("intent", "ne", "ae")
    assert parse_filter("publication_date ge 2020-01-31") == Comparison(
        "publication_date", "ge", date(2020, 1, 31)
    )


def test_not_binds_tighter_than_and_and_and_tighter_than_or() -> None:
    parsed = parse_filter("not source eq 'a' and section eq 'b' or doc_type eq 'c'")
    assert parsed == Either(
        Both(Negated(Comparison("source", "eq", "a")), Comparison("section", "eq", "b")),
        Comparison("doc_type", "eq", "c"),
    )


def test_parentheses_override_precedence() -> None:
    parsed = parse_filter("source eq 'a' and (section eq 'b' or section eq 'c')")
    assert parsed == Both(
        Comparison("source", "eq", "a"),
        Either(Comparison("section", "eq", "b"), Comparison("section", "eq", "c")),
    )


def test_in_lists_and_doubled_quotes() -> None:
    assert parse_filter("section in ('eligibility', 'it''s')") == Membership(
        "section", ("eligibility", "it's")
    )


def test_keywords_are_whole_words() -> None:
    # `intent` starts with the keyword `in`, `notes`-like names with `not`.
    assert parse_filter("intent in ('ae')") == Membership("intent", ("ae",))


@pytest.mark.parametrize(
    ("text", "position", "token", "words"),
    [
        ("source eq 'pmc' xor", 17, "xor", "expected one of: and; or; the end"),
        ("source EQ 'pmc'", 8, "EQ", "eq, ne, gt, ge, lt, le"),
        ("source eq", 10, "", "ends too early"),
        ("(source eq 'pmc'", 17, "", "ends too early"),
        ("source eq 'pmc' @", 17, "@", "unexpected character"),
        ("tenant_id eq 'tenant-b'", 1, "tenant_id", "the tenant comes from the API key"),
        (
            "title eq 'x'",
            1,
            "title",
            "filterable fields are source, doc_type, section, intent, publication_date",
        ),
        ("source gt 'a'", 8, "gt", "source takes eq, ne or in"),
        ("publication_date eq '2020-01-01'", 21, "'2020-01-01'", "unquoted"),
        ("publication_date lt 2020-02-30", 21, "2020-02-30", "not a calendar date"),
        ("source eq 12", 11, "12", "quoted string"),
        ("source in ()", 12, ")", "expected"),
        ("   ", 1, "   ", "empty"),
    ],
)
def test_errors_name_the_position_and_the_token(text: str, position: int, token: str, words: str) -> None:
    with pytest.raises(ODataError) as caught:
        parse_filter(text)
    error = caught.value
    assert (error.option, error.position, error.token) == ("$filter", position, token)
    assert words in str(error) and f"at position {position}" in str(error)


def test_orderby_keys_default_to_ascending() -> None:
    assert parse_orderby("publication_date desc, score") == (
        SortKey("publication_date", "desc"),
        SortKey("score", "asc"),
    )


@pytest.mark.parametrize(
    ("text", "position", "token"),
    [("title asc", 1, "title"), ("score sideways", 7, "sideways"), ("score, score desc", 8, "score")],
)
def test_orderby_errors(text: str, position: int, token: str) -> None:
    with pytest.raises(ODataError) as caught:
        parse_orderby(text)
    assert (caught.value.option, caught.value.position, caught.value.token) == ("$orderby", position, token)


def test_an_overlong_expression_is_refused() -> None:
    with pytest.raises(ODataError, match="longer than 2000"):
        parse_filter("source eq 'a' or " * 200 + "source eq 'b'")


def test_nesting_past_the_limit_is_an_odata_error_not_a_recursion() -> None:
    from control_plane.search.odata.syntax import MAX_DEPTH

    deep = "not " * 495 + "source eq 'pmc'"  # 1,995 characters: under MAX_LENGTH
    with pytest.raises(ODataError, match=f"nested 495 deep; at most {MAX_DEPTH}"):
        parse_filter(deep)
    parse_filter("not " * (MAX_DEPTH - 1) + "(source eq 'pmc' or source eq 'ctgov')")
