import pytest
from pydantic import ValidationError

from control_plane.api.params import retrieve_spec, spec_from_body, spec_from_query


def test_get_parameters_become_a_spec() -> None:
    spec = spec_from_query(
        {
            "q": "statin",
            "k": "5",
            "from": "10",
            "components": "bm25,dense",
            "fusion_method": "weighted",
            "weights": "bm25:0.4,dense:0.6",
            "rerank": "true",
            "source": "ctgov,pmc",
            "date_from": "2019-01-01",
        }
    )
    assert (spec.size, spec.from_, spec.components, spec.rerank) == (5, 10, ("bm25", "dense"), True)
    assert spec.weights == {"bm25": 0.4, "dense": 0.6}
    assert spec.filters.source == ["ctgov", "pmc"]
    assert spec.filters.publication_date is not None
    assert str(spec.filters.publication_date.gte) == "2019-01-01"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "'q'"),
        ({"q": "x", "k": "ten"}, "integer"),
        ({"q": "x", "rerank": "maybe"}, "true or false"),
        ({"q": "x", "tenant_id": "other"}, "unknown query parameter"),
        ({"q": "x", "weights": "bm25=1"}, "bm25:0.3"),
    ],
)
def test_bad_get_parameters_name_the_problem(args: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        spec_from_query(args)


def test_k_is_size_in_a_body_but_not_both() -> None:
    assert spec_from_body({"query": "q", "k": 7}).size == 7
    with pytest.raises(ValueError, match="either 'k' or 'size'"):
        spec_from_body({"query": "q", "k": 7, "size": 7})


def test_a_body_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValueError, match="JSON object"):
        spec_from_body(["q"])


def test_retrieve_shape() -> None:
    spec = retrieve_spec(
        {
            "query": "q",
            "intent": "eligibility",
            "topK": 3,
            "rerank_enabled": True,
            "filters": {"source": ["ctgov"]},
        }
    )
    assert (spec.size, spec.rerank, spec.query_intent, spec.filters.source) == (
        3,
        True,
        ["eligibility"],
        ["ctgov"],
    )
    with pytest.raises(ValueError, match="unknown field"):
        retrieve_spec({"query": "q", "k": 3})
    with pytest.raises(ValidationError):
        retrieve_spec({"query": ""})
