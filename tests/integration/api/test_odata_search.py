"""GET /v1/search with OData options against the real stack: $filter narrows (never past the key's
tenant), $orderby orders the fused candidates, $top/$skip page them, and a malformed option is a 400 that
names the position and the token."""

from __future__ import annotations

from typing import Any

import pytest
from integration.api.stack import ApiStack, headers

pytestmark = pytest.mark.integration


def get(stack: ApiStack, params: dict[str, str], key: str = "a-search", status: int = 200) -> dict[str, Any]:
    response = stack.client().get("/v1/search", query_string=params, headers=headers(key))
    assert response.status_code == status, response.get_data(as_text=True)
    answer: dict[str, Any] = response.get_json()
    return answer


def test_a_filter_narrows_and_its_negation_excludes(stack: ApiStack) -> None:
    query = {"q": "adverse events in patients", "$top": "20", "boosts": "false"}
    pmc = get(stack, {**query, "$filter": "source eq 'pmc'"})["results"]
    other = get(stack, {**query, "$filter": "not source eq 'pmc'"})["results"]
    assert pmc and {r["source"] for r in pmc} == {"pmc"}
    assert other and "pmc" not in {r["source"] for r in other}


def test_a_date_range_and_an_in_list(stack: ApiStack) -> None:
    dated = get(stack, {"q": "study results", "$top": "20", "$filter": "publication_date ge 2000-01-01"})[
        "results"
    ]
    assert dated and all(r["publication_date"] and r["publication_date"] >= "2000-01-01" for r in dated)
    sections = get(
        stack, {"q": "study results", "$top": "20", "$filter": "section in ('eligibility', 'results')"}
    )["results"]
    assert sections and {r["section"] for r in sections} <= {"eligibility", "results"}


def test_a_filter_can_never_widen_the_tenant(stack: ApiStack) -> None:
    everything = "source eq 'pmc' or not source eq 'pmc'"
    seen = {
        r["doc_id"]
        for r in get(stack, {"q": "adverse events", "$top": "50", "$filter": everything}, "b-search")[
            "results"
        ]
    }
    assert seen and seen <= stack.tenant_docs["tenant-b"]
    refused = get(
        stack, {"q": "adverse events", "$filter": "tenant_id eq 'tenant-a'"}, "b-search", status=400
    )
    assert "at position 1 ('tenant_id')" in str(refused)


def test_orderby_dates_and_pages_that_concatenate(stack: ApiStack) -> None:
    base = {
        "q": "trial outcomes",
        "$orderby": "publication_date desc",
        "$filter": "publication_date ge 1900-01-01",
    }
    whole = get(stack, {**base, "$top": "6"})["results"]
    dates = [r["publication_date"] for r in whole]
    assert len(whole) == 6 and dates == sorted(dates, reverse=True)
    first, second = (get(stack, {**base, "$top": "3", "$skip": skip})["results"] for skip in ("0", "3"))
    assert [r["chunk_id"] for r in first + second] == [r["chunk_id"] for r in whole]


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"$filter": "source eq 'pmc' xor"}, "at position 17 ('xor')"),
        ({"$filter": "source gt 'pmc'"}, "at position 8 ('gt')"),
        ({"$orderby": "title desc"}, "at position 1 ('title')"),
        ({"$top": "3", "size": "4"}, "either '$top' or 'size'"),
    ],
)
def test_malformed_options_are_400s_that_say_where(
    stack: ApiStack, params: dict[str, str], says: str
) -> None:
    answer = get(stack, {"q": "x", **params}, status=400)
    assert says in str(answer), answer
