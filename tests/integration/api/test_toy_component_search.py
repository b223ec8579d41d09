"""The toy component of the test suite (tests/toy_component.py: the title alone by BM25), added to
``COMPONENTS`` for the test only, is searched for real through /v1/search: OpenSearch runs its named
sub-query, fuses it with the weights the request gives it, and each hit reports its score. No other
change is needed for a component (issue 52: components as records)."""

from __future__ import annotations

from typing import Any

import pytest
from integration.api.stack import ApiStack, headers
from integration.api.test_search_api import search
from toy_component import with_title

pytestmark = pytest.mark.integration


def test_a_component_added_as_a_record_is_searched_fused_and_scored(
    stack: ApiStack, with_title: None
) -> None:
    body = {
        "query": "breast cancer",
        "components": ["bm25", "title"],
        "fusion_method": "weighted",
        "weights": {"bm25": 0.5, "title": 0.5},
        "boosts": False,
        "size": 10,
    }
    answer = search(stack, body)
    assert answer["metadata"]["components_used"] == ["bm25", "title"]
    assert answer["metadata"]["fusion"]["weights"] == {"bm25": 0.5, "title": 0.5}
    titled = [r for r in answer["results"] if r["component_scores"]["title"] is not None]
    assert titled, answer["results"]
    for result in titled:  # the toy's match: its words in the title
        assert {"breast", "cancer"} & set((result["title_path"] or "").lower().split()), result["title_path"]
    assert all(r["component_scores"]["splade"] is None for r in answer["results"])
    rewritten = stack.client().post("/v1/rewrite", json=body, headers=headers("a-search")).get_json()
    names = [query.get("match", {}).get("title_path", {}).get("_name") for query in _sub_queries(rewritten)]
    assert "title" in names


def _sub_queries(rewritten: dict[str, Any]) -> list[dict[str, Any]]:
    queries: list[dict[str, Any]] = rewritten["body"]["query"]["hybrid"]["queries"]
    return queries


__all__ = ["with_title"]
