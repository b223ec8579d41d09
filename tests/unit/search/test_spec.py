import pytest
from pydantic import ValidationError

from control_plane.search.spec import SearchSpec


def test_defaults_search_every_component_with_rrf() -> None:
    spec = SearchSpec(query="statin myopathy")
    assert spec.components == ("bm25", "splade", "dense")
    assert spec.fusion_method == "rrf"
    assert (spec.from_, spec.size, spec.candidate_depth) == (0, 10, None)  # None: search.candidate_depth


def test_components_come_back_in_sub_query_order() -> None:
    assert SearchSpec(query="q", components=("dense", "bm25")).components == ("bm25", "dense")


@pytest.mark.parametrize("components", [(), ("bm25", "bm25"), ("bm25", "colbert")])
def test_bad_components_are_refused(components: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError):
        SearchSpec(query="q", components=components)  # type: ignore[arg-type]


def test_weights_must_sum_to_one_within_a_hundredth() -> None:
    SearchSpec(query="q", fusion_method="weighted", weights={"bm25": 0.305, "splade": 0.35, "dense": 0.35})
    with pytest.raises(ValidationError, match="sum to 1"):
        SearchSpec(query="q", fusion_method="weighted", weights={"bm25": 0.5, "splade": 0.35, "dense": 0.35})


def test_weights_must_name_the_components_searched() -> None:
    with pytest.raises(ValidationError, match="exactly the components"):
        SearchSpec(
            query="q",
            components=("bm25", "dense"),
            fusion_method="weighted",
            weights={"bm25": 0.5, "splade": 0.5},
        )


@pytest.mark.parametrize("weight", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_weights_are_refused(weight: float) -> None:
    with pytest.raises(ValidationError, match="weights must be finite numbers"):
        SearchSpec(
            query="q",
            components=("bm25", "dense"),
            fusion_method="weighted",
            weights={"bm25": weight, "dense": 0.5},
        )


def test_negative_weights_are_refused() -> None:
    with pytest.raises(ValidationError, match=">= 0"):
        SearchSpec(
            query="q",
            components=("bm25", "dense"),
            fusion_method="weighted",
            weights={"bm25": -0.5, "dense": 1.5},
        )


def test_rrf_takes_weights_under_the_same_rules() -> None:
    spec = SearchSpec(query="q", components=("bm25", "dense"), weights={"bm25": 0.7, "dense": 0.3})
    assert spec.fusion_method == "rrf" and spec.weights == {"bm25": 0.7, "dense": 0.3}
    with pytest.raises(ValidationError, match="sum to 1"):
        SearchSpec(query="q", components=("bm25", "dense"), weights={"bm25": 0.7, "dense": 0.7})
    with pytest.raises(ValidationError, match="exactly the components"):
        SearchSpec(query="q", components=("bm25", "dense"), weights={"bm25": 1.0})


@pytest.mark.parametrize("blank", [" ", "   \t\n", "\u3000", "\u200b\u200b", "\ufeff", "\u200d \u2060"])
def test_a_blank_query_is_refused(blank: str) -> None:
    with pytest.raises(ValidationError, match="query is blank"):
        SearchSpec(query=blank)


def test_unknown_fields_such_as_a_tenant_are_refused() -> None:
    with pytest.raises(ValidationError, match="tenant_id"):
        SearchSpec.model_validate({"query": "q", "tenant_id": "other"})


def test_from_is_accepted_under_its_json_name() -> None:
    assert SearchSpec.model_validate({"query": "q", "from": 20}).from_ == 20


def test_a_date_range_must_be_ordered() -> None:
    with pytest.raises(ValidationError, match="after"):
        SearchSpec.model_validate(
            {"query": "q", "filters": {"publication_date": {"gte": "2020-01-01", "lte": "2019-01-01"}}}
        )


def test_a_page_past_the_fused_candidate_list_is_refused() -> None:
    SearchSpec.model_validate({"query": "q", "from": 290, "size": 10, "candidate_depth": 100})
    with pytest.raises(ValidationError, match="past the fused candidate list"):
        SearchSpec.model_validate({"query": "q", "from": 295, "size": 10, "candidate_depth": 100})
    # Reranking cuts nothing (hits below the depth follow in fused order): a page past it is valid.
    SearchSpec.model_validate({"query": "q", "from": 45, "size": 10, "rerank": True, "rerank_top_n": 50})
