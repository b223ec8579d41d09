"""A retrieval component is one record (query/components.py ``RetrievalComponent``): a toy one, added
in the test suite only (tests/toy_component.py: the title alone by BM25), flows through the API's query
(``build_request``), the clinical pipelines' rewrite and the results with no other change."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from toy_component import with_title

from control_plane.clinical.intents import DEFAULT_INTENTS_FILE
from control_plane.clinical.pipeline import rewrite
from control_plane.clinical.planning import intent_config
from control_plane.config.search_settings import FacetSettings
from control_plane.config.settings import Settings
from control_plane.query.components import QueryEncodings
from control_plane.search.request import build_request
from control_plane.search.results import chunk_result
from control_plane.search.spec import SearchSpec


def _name(node: Any) -> str | None:
    """The first ``_name`` in a sub-query (where each component's record puts it)."""
    if isinstance(node, dict):
        if isinstance(node.get("_name"), str):
            return str(node["_name"])
        return next((found for value in node.values() if (found := _name(value)) is not None), None)
    if isinstance(node, list):
        return next((found for value in node if (found := _name(value)) is not None), None)
    return None


def _sub_query_names(hybrid: dict[str, Any]) -> list[str | None]:
    return [_name(query) for query in hybrid["queries"]]


def test_the_apis_query_searches_it_named_and_weighted(with_title: None) -> None:
    spec = SearchSpec.model_validate(
        {
            "query": "statins in breast cancer",
            "components": ["title", "bm25", "dense"],
            "fusion_method": "weighted",
            "weights": {"bm25": 0.3, "dense": 0.5, "title": 0.2},
            "candidate_depth": 50,
        }
    )
    assert spec.components == ("bm25", "dense", "title")  # sub-query order: the registry's
    request = build_request(
        spec,
        Settings(),
        tenant_id="t1",
        index="chunks-t1",
        components=spec.components,
        weights=spec.weights,
        encodings=QueryEncodings(dense_vector=[0.1, 0.2]),
    )
    hybrid = request.body["query"]["hybrid"]
    assert _sub_query_names(hybrid) == ["bm25", "dense", "title"]
    assert hybrid["queries"][2] == {
        "match": {"title_path": {"query": "statins in breast cancer", "_name": "title"}}
    }
    processors = request.body["search_pipeline"]["phase_results_processors"]
    weights = processors[0]["normalization-processor"]["combination"]["parameters"]["weights"]
    assert weights == [0.3, 0.5, 0.2]


def test_the_pipelines_rewrite_sends_it(with_title: None) -> None:
    config = intent_config(str(DEFAULT_INTENTS_FILE))
    done = rewrite({"query": {"match": {"text": "side effects of statins"}}}, config, FacetSettings(), 100)
    hybrid = done.query["hybrid"]
    assert _sub_query_names(hybrid) == ["bm25", "splade", "dense", "title"]
    assert hybrid["queries"][3]["match"]["title_path"]["query"] == "side effects of statins"


def test_the_results_carry_its_score(with_title: None) -> None:
    hit = {
        "_id": "c1",
        "_score": 0.9,
        "_source": {"chunk_id": "c1", "doc_id": "d1", "text": "statins"},
        "matched_queries": {"bm25": 4.2, "title": 7.5},
    }
    result = chunk_result(hit, False, ("bm25", "title"))
    scores = result.component_scores.model_dump()
    assert scores == {"bm25": 4.2, "splade": None, "dense": None, "reranker": None, "title": 7.5}


def test_without_the_record_the_name_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(
        ValidationError, match=r"unknown component 'title': one of \['bm25', 'splade', 'dense'\]"
    ):
        SearchSpec.model_validate({"query": "statins", "components": ["bm25", "title"]})


__all__ = ["with_title"]
