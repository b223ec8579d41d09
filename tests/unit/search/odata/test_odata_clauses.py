"""A parsed $filter as OpenSearch clauses (hand-written JSON), placed after the tenant's term."""

from __future__ import annotations

from control_plane.search.odata.clauses import filter_clause
from control_plane.search.odata.syntax import parse_filter
from control_plane.search.request import filter_clauses
from control_plane.search.spec import Filters


def test_comparisons_become_term_range_and_must_not_clauses() -> None:
    assert filter_clause(parse_filter("source eq 'pmc'")) == {"term": {"source": "pmc"}}
    assert filter_clause(parse_filter("intent ne 'ae'")) == {
        "bool": {"must_not": [{"term": {"intent_hint": "ae"}}]}
    }
    assert filter_clause(parse_filter("publication_date lt 2021-06-01")) == {
        "range": {"publication_date": {"lt": "2021-06-01"}}
    }
    assert filter_clause(parse_filter("publication_date ge 2021-06-01")) == {
        "range": {"publication_date": {"gte": "2021-06-01"}}
    }


def test_boolean_structure() -> None:
    clause = filter_clause(
        parse_filter("not (source in ('pmc','ctgov') and section eq 'results') or doc_type eq 'x'")
    )
    assert clause == {
        "bool": {
            "should": [
                {
                    "bool": {
                        "must_not": [
                            {
                                "bool": {
                                    "filter": [
                                        {"terms": {"source": ["pmc", "ctgov"]}},
                                        {"term": {"section": "results"}},
                                    ]
                                }
                            }
                        ]
                    }
                },
                {"term": {"doc_type": "x"}},
            ],
            "minimum_should_match": 1,
        }
    }


def test_the_expression_is_anded_after_the_tenant_and_the_lists() -> None:
    # A tautology cannot widen a search: every clause here is a filter (AND), the tenant first.
    filters = Filters(source=["pmc"], expression="source eq 'x' or not source eq 'x'")
    assert filter_clauses("tenant-a", filters) == [
        {"term": {"tenant_id": "tenant-a"}},
        {"terms": {"source": ["pmc"]}},
        {
            "bool": {
                "should": [
                    {"term": {"source": "x"}},
                    {"bool": {"must_not": [{"term": {"source": "x"}}]}},
                ],
                "minimum_should_match": 1,
            }
        },
    ]
