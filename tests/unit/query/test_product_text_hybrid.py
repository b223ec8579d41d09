"""The product's hybrid query by text (what the clinical pipelines' rewrite and the Haystack retriever
send), against hand-written JSON."""

from __future__ import annotations

from control_plane.query.components import product_text_hybrid

TENANT = {"term": {"tenant_id": "t"}}


def test_the_named_query_filters_every_component() -> None:
    assert product_text_hybrid("warfarin", 50, [TENANT]) == {
        "hybrid": {
            "queries": [
                {
                    "multi_match": {
                        "query": "warfarin",
                        "fields": [
                            "text^1",
                            "title_path^1.4",
                            "facet_json^1.6",
                            "table_lines^1.2",
                            "identifiers^1",
                            "topics^1",
                        ],
                        "type": "best_fields",
                        "_name": "bm25",
                    }
                },
                {"neural_sparse": {"sparse_terms": {"query_text": "warfarin", "_name": "splade"}}},
                {
                    "bool": {
                        "must": [
                            {
                                "neural": {
                                    "embedding": {
                                        "query_text": "warfarin",
                                        "k": 50,
                                        "filter": {"bool": {"filter": [TENANT]}},
                                    }
                                }
                            }
                        ],
                        "_name": "dense",
                    }
                },
            ],
            "pagination_depth": 50,
            "filter": {"bool": {"filter": [TENANT]}},
        }
    }


def test_without_filters_no_filter_is_sent() -> None:
    hybrid = product_text_hybrid("x", 10, [])["hybrid"]
    assert (
        "filter" not in hybrid
        and "filter" not in hybrid["queries"][2]["bool"]["must"][0]["neural"]["embedding"]
    )


def test_sparse_and_dense_search_the_semantic_text_and_bm25_the_question() -> None:
    query = product_text_hybrid("eligibility for breast cancer", 50, semantic_text="for breast cancer")
    bm25, splade, dense = query["hybrid"]["queries"]
    assert bm25["multi_match"]["query"] == "eligibility for breast cancer"
    assert splade["neural_sparse"]["sparse_terms"]["query_text"] == "for breast cancer"
    assert "for breast cancer" in str(dense)
    assert "eligibility" not in str(dense)
