from control_plane.mlcommons.model_output import with_string_ef_search


def test_every_ef_search_becomes_its_digits_and_nothing_else_changes() -> None:
    dense = {
        "neural": {"dense_embedding": {"query_text": "q", "k": 100, "method_parameters": {"ef_search": 200}}}
    }
    sparse = {"neural_sparse": {"sparse": {"query_text": "q", "method_parameters": {"top_n": 10, "k": 5}}}}
    query = {"hybrid": {"queries": [{"match": {"text": "q"}}, dense, sparse], "pagination_depth": 100}}
    out = with_string_ef_search(query)
    assert out["hybrid"]["queries"][1]["neural"]["dense_embedding"] == {
        "query_text": "q",
        "k": 100,
        "method_parameters": {"ef_search": "200"},
    }
    assert out["hybrid"]["queries"][2] == sparse  # not an ef_search: left as it is
    assert out["hybrid"]["pagination_depth"] == 100
    assert query["hybrid"]["queries"][1]["neural"]["dense_embedding"]["method_parameters"] == {
        "ef_search": 200
    }


def test_values_that_are_not_integers_stay_as_they_are() -> None:
    for value in ("200", 200.5, True, None):
        query = {"knn": {"f": {"method_parameters": {"ef_search": value}}}}
        assert with_string_ef_search(query) == query
