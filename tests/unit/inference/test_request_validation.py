"""Request bodies: the shapes ml-commons sends are accepted, everything else is refused by name."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from control_plane.config.search_settings import SectionRoutingSettings
from control_plane.inference.clinical import ROUTE_PARAMETERS, RouteBody
from control_plane.inference.validation import (
    EmbeddingsRequest,
    Limits,
    RequestError,
    embeddings_request,
    rerank_request,
    texts_request,
)

LIMITS = Limits(max_items=3, max_chars=10)


def test_embedding_body_from_the_default_pre_process_function() -> None:
    assert texts_request({"input": ["a", "b c"]}, LIMITS) == ["a", "b c"]


@pytest.mark.parametrize(
    ("body", "status", "names"),
    [
        ([1], 400, "JSON object"),
        ({}, 400, "'input' is required"),
        ({"input": "text"}, 400, "'input' must be a list of strings, got str"),
        ({"input": []}, 400, "'input' is an empty list"),
        ({"input": ["ok", 7]}, 400, "'input[1]' must be a string, got int"),
        ({"input": ["ok", "  "]}, 400, "'input[1]' is empty"),
        ({"input": ["a", "b", "c", "d"]}, 413, "'input' has 4 items; the limit is 3"),
        ({"input": ["x" * 11]}, 413, "'input[0]' has 11 characters; the limit is 10"),
    ],
)
def test_bad_embedding_bodies(body: Any, status: int, names: str) -> None:
    with pytest.raises(RequestError) as caught:
        texts_request(body, LIMITS)
    assert caught.value.status == status
    assert names in caught.value.message


def test_embedding_input_type_says_query_or_document_and_defaults_to_document() -> None:
    assert embeddings_request({"input": ["a"]}, LIMITS) == EmbeddingsRequest(["a"], "document")
    query = embeddings_request({"input": ["a"], "input_type": "query"}, LIMITS)
    assert query.as_query and query.texts == ["a"]
    assert not embeddings_request({"input": ["a"], "input_type": "document"}, LIMITS).as_query
    with pytest.raises(RequestError, match="'input_type' must be one of document, query, got 'passage'"):
        embeddings_request({"input": ["a"], "input_type": "passage"}, LIMITS)


def test_a_question_with_no_visible_character_is_refused_and_a_document_is_not() -> None:
    invisible = "\u200b\ufeff"
    with pytest.raises(RequestError, match="'input\\[1\\]' has no visible character") as caught:
        embeddings_request({"input": ["a", invisible], "input_type": "query"}, LIMITS)
    assert caught.value.status == 400
    assert embeddings_request({"input": [invisible]}, LIMITS).texts == [invisible]  # a document's text as is
    with pytest.raises(RequestError, match="'query' has no visible character"):
        rerank_request({"query": invisible, "documents": ["d"]}, LIMITS)


def test_rerank_body_from_the_default_rerank_pre_process_function() -> None:
    req = rerank_request({"query": "q", "documents": ["d1", "d2"], "top_n": 2}, LIMITS)
    assert (req.query, req.documents, req.top_n) == ("q", ["d1", "d2"], 2)
    assert rerank_request({"query": "q", "documents": ["d"]}, LIMITS).top_n is None


def test_rerank_body_from_the_projects_connector_carries_the_blend_and_the_callers_budget() -> None:
    body = {"query": "q", "documents": ["d1", "d2"], "depth": 1, "model_weight": 0.5, "budget_ms": 1500}
    req = rerank_request(body, LIMITS)
    assert (req.depth, req.model_weight, req.budget_ms, req.blended) == (1, 0.5, 1500, True)
    assert rerank_request({"query": "q", "documents": ["d"]}, LIMITS).budget_ms is None


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ({"documents": ["d"]}, "'query' is required"),
        ({"query": 3, "documents": ["d"]}, "'query' must be a string, got int"),
        ({"query": "q"}, "'documents' is required"),
        ({"query": "q", "documents": ["d"], "top_n": 0}, "'top_n' must be a positive integer"),
        ({"query": "q", "documents": ["d"], "top_n": True}, "'top_n' must be a positive integer"),
        ({"query": "q", "documents": ["d"], "top_n": "2"}, "'top_n' must be a positive integer"),
        ({"query": "q", "documents": ["d"], "budget_ms": 0}, "'budget_ms' must be a positive integer"),
    ],
)
def test_bad_rerank_bodies(body: Any, names: str) -> None:
    with pytest.raises(RequestError) as caught:
        rerank_request(body, LIMITS)
    assert caught.value.status == 400 and names in caught.value.message


def test_empty_rerank_documents_say_that_text_was_left_out_of_source() -> None:
    """What a -rerank pipeline queried with a _source without `text` sends (the processor finds no text)."""
    with pytest.raises(RequestError) as caught:
        rerank_request({"query": "q", "documents": ["", "", "d"]}, LIMITS)
    message = caught.value.message
    assert caught.value.status == 400 and message.startswith("'documents[0]' is empty (2 of 3 documents)")
    assert "keep `text` in its _source" in message


def test_the_route_body_is_bounded_as_the_routing_settings_are() -> None:
    # One declaration of the bounds: the route body's come from SectionRoutingSettings' fields.
    for name in ROUTE_PARAMETERS:
        declared = SectionRoutingSettings.model_fields[name]
        received = RouteBody.model_fields[name]
        assert received.is_required()
        assert received.annotation is declared.annotation and received.metadata == declared.metadata
    body = {"hits": [], "query": {}, "weight": 4.0, "min_topicality": 0.8, "max_documents": 3, "depth": 50}
    assert RouteBody.model_validate(body).max_documents == 3
    with pytest.raises(ValidationError, match="max_documents"):
        RouteBody.model_validate({**body, "max_documents": 101})
    with pytest.raises(ValidationError, match="depth"):
        RouteBody.model_validate({key: value for key, value in body.items() if key != "depth"})
