"""The query forms the clinical pipelines read: each library's body (as captured in
../shared/notes/rag-client-bodies.md, vectors shortened) gives the question and the client's filters."""

from __future__ import annotations

from typing import Any

import pytest

from control_plane.clinical.client_forms import (
    PipelineQueryError,
    chunk_fields,
    client_query,
    filters_sources,
)

Q = "side effects of the treatment"
VECTOR = [0.1, -0.2, 0.3]


def test_the_short_and_long_match_and_a_bool_with_filters_are_read() -> None:
    assert client_query({"match": {"text": Q}}).text == Q
    assert client_query({"match": {"text": {"query": Q, "operator": "OR"}}}).text == Q
    read = client_query(
        {"bool": {"must": {"match": {"text": "dose"}}, "filter": [{"term": {"source": "pmc"}}]}}
    )
    assert read.text == "dose" and read.filters == ({"term": {"source": "pmc"}},)


def test_haystacks_bm25_multi_match_without_fields_is_read() -> None:
    body = {
        "bool": {
            "must": [{"multi_match": {"query": Q, "fuzziness": 0, "type": "most_fields", "operator": "OR"}}]
        }
    }
    assert client_query(body) == client_query({"match": {"text": Q}})


def test_llamaindex_text_search_with_metadata_filters_is_read_on_the_chunk_fields() -> None:
    body = {
        "bool": {
            "must": {"match": {"text": {"query": Q}}},
            "filter": [{"bool": {"must": [{"term": {"metadata.source.keyword": "ctgov"}}]}}],
        }
    }
    read = client_query(body)
    assert read.text == Q
    assert read.filters == ({"bool": {"must": [{"term": {"source": "ctgov"}}]}},)
    assert filters_sources(read.filters)


def test_a_hybrid_of_a_text_clause_and_a_client_knn_keeps_the_question_and_every_filter() -> None:
    llama = {
        "hybrid": {
            "queries": [
                {
                    "bool": {
                        "must": {"match": {"text": {"query": Q}}},
                        "filter": [{"term": {"source": "pmc"}}],
                    }
                },
                {"knn": {"embedding": {"vector": VECTOR, "k": 5, "filter": {"term": {"source": "pmc"}}}}},
            ]
        }
    }
    read = client_query(llama)
    assert read.text == Q and read.filters == ({"term": {"source": "pmc"}},)  # the same filter once
    langchain = {
        "hybrid": {
            "queries": [
                {"match": {"text": {"query": Q}}},
                {"knn": {"vector_field": {"vector": VECTOR, "k": 5}}},
            ]
        }
    }
    assert client_query(langchain).text == Q and client_query(langchain).filters == ()


def test_the_explicit_product_hybrid_is_read_by_its_question() -> None:
    body = {
        "hybrid": {
            "queries": [
                {"multi_match": {"query": Q, "fields": ["text^1", "title_path^1.4"]}},
                {"neural_sparse": {"sparse_terms": {"query_text": Q}}},
                {"neural": {"embedding": {"query_text": Q, "k": 100}}},
            ],
            "pagination_depth": 100,
            "filter": {"term": {"doc_id": "NCT01"}},
        }
    }
    assert client_query(body).filters == ({"term": {"doc_id": "NCT01"}},)


def test_must_not_is_kept_as_an_exclusion_filter() -> None:
    read = client_query({"bool": {"must": {"match": {"text": Q}}, "must_not": {"term": {"source": "pmc"}}}})
    assert read.filters == ({"bool": {"must_not": [{"term": {"source": "pmc"}}]}},)


def test_metadata_names_become_chunk_fields_at_any_depth() -> None:
    clause = {
        "bool": {
            "should": [
                {"range": {"metadata.publication_date": {"gte": "2020"}}},
                {"exists": {"field": "metadata.doc_id"}},
            ]
        }
    }
    assert chunk_fields(clause) == {
        "bool": {
            "should": [{"range": {"publication_date": {"gte": "2020"}}}, {"exists": {"field": "doc_id"}}]
        }
    }


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({"term": {"source": "pmc"}}, "got 'term'"),
        ({"match": {"section": "dose"}}, "got 'match'"),
        ({"bool": {"must": [{"match": {"text": "a"}}], "should": [{"match": {"text": "b"}}]}}, "should"),
        ({"bool": {"must": [{"match": {"text": "a"}}, {"match": {"text": "b"}}]}}, "exactly one"),
        ({"knn": {"embedding": {"vector": VECTOR, "k": 5}}}, "vector alone"),
        ({"hybrid": {"queries": [{"knn": {"embedding": {"vector": VECTOR, "k": 5}}}]}}, "no question"),
        (
            {"hybrid": {"queries": [{"match": {"text": "a"}}, {"match": {"text": "b"}}]}},
            "2 different questions",
        ),
        ({"match": {"text": "   "}}, "got 'match'"),
        ({"match": {"text": "\u200b\ufeff\u2060"}}, "got 'match'"),  # nothing a reader would see
        ("side effects", "is an object"),
        (None, "is an object"),
    ],
)
def test_other_forms_are_refused_with_what_to_send(query: Any, says: str) -> None:
    with pytest.raises(PipelineQueryError, match="match") as refused:
        client_query(query)
    assert says in str(refused.value)


def test_pre_encoded_clauses_inside_a_hybrid_are_replaced_like_a_knn() -> None:
    body = {
        "hybrid": {
            "queries": [
                {"multi_match": {"query": Q, "fields": ["text"]}},
                {"neural_sparse": {"sparse_terms": {"query_tokens": {"side": 1.2}}}},
                {"knn": {"embedding": {"vector": VECTOR, "k": 100}}},
            ]
        }
    }
    assert client_query(body).text == Q
    with pytest.raises(PipelineQueryError, match="vector alone"):
        client_query({"neural_sparse": {"sparse_terms": {"query_tokens": {"side": 1.2}}}})


@pytest.mark.parametrize(
    "query",
    [
        {"bool": {"must": {"match": {"text": Q}}, "filter": "$filters"}},
        {"bool": {"must": {"match": {"text": Q}}, "filter": [{"term": {"source": "pmc"}}, "pmc"]}},
        {"bool": {"must": {"match": {"text": Q}}, "must_not": ["pmc"]}},
        {"hybrid": {"queries": [{"match": {"text": Q}}], "filter": "pmc"}},
        {
            "hybrid": {
                "queries": [{"match": {"text": Q}}, {"knn": {"embedding": {"vector": VECTOR, "filter": 3}}}]
            }
        },
    ],
)
def test_a_filter_that_is_not_a_query_clause_is_refused_never_dropped(query: dict[str, Any]) -> None:
    with pytest.raises(PipelineQueryError, match="not a query clause"):
        client_query(query)


def test_a_null_filter_is_no_filter() -> None:
    """Haystack's custom_query puts null where ``$filters`` stands when a run passes none."""
    assert client_query({"bool": {"must": {"match": {"text": Q}}, "filter": None}}).filters == ()


def test_a_question_past_the_searched_length_is_refused_by_name() -> None:
    from control_plane.clinical.client_forms import MAX_QUESTION_CHARS

    client_query({"match": {"text": "x" * MAX_QUESTION_CHARS}})
    with pytest.raises(PipelineQueryError, match=f"has 50000 characters; at most {MAX_QUESTION_CHARS}"):
        client_query({"match": {"text": "x" * 50_000}})  # a 500 (read timed out) through the pipelines before
