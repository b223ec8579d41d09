"""GET /v1/search's OData options ($filter, $orderby, $top, $skip) into a SearchSpec, and their errors."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from control_plane.api.errors import validation_problems
from control_plane.api.params import spec_from_query
from control_plane.errors import BadRequestError
from control_plane.search.odata.expression import SortKey


def test_the_options_fill_the_spec() -> None:
    spec = spec_from_query(
        {
            "q": "statins",
            "$filter": "source eq 'pmc' and publication_date ge 2020-01-01",
            "$orderby": "publication_date desc",
            "$top": "5",
            "$skip": "10",
            "section": "results",
        }
    )
    assert spec.filters.expression == "source eq 'pmc' and publication_date ge 2020-01-01"
    assert spec.filters.section == ["results"]
    assert spec.order_by == (SortKey("publication_date", "desc"),)
    assert (spec.size, spec.from_) == (5, 10)


@pytest.mark.parametrize(("option", "same"), [("$top", "size"), ("$top", "k"), ("$skip", "from")])
def test_an_option_and_its_plain_parameter_together_are_refused(option: str, same: str) -> None:
    with pytest.raises(BadRequestError, match=f"either '\\{option}' or '{same}'"):
        spec_from_query({"q": "x", option: "3", same: "4"})


def test_a_bad_filter_is_a_problem_naming_the_field_position_and_token() -> None:
    with pytest.raises(ValidationError) as caught:
        spec_from_query({"q": "x", "$filter": "source eq 'pmc' xor"})
    [problem] = validation_problems(caught.value)
    assert problem["field"] == "filters.expression"
    assert "at position 17 ('xor')" in problem["problem"]


def test_a_bad_orderby_and_a_bad_top() -> None:
    with pytest.raises(ValidationError, match="position 1 \\('title'\\)"):
        spec_from_query({"q": "x", "$orderby": "title"})
    with pytest.raises(BadRequestError, match="'\\$top' must be an integer"):
        spec_from_query({"q": "x", "$top": "ten"})
