"""The compare request's checks: each problem is a 400 naming the configuration and the option."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from control_plane.api.console.configs import (
    CompareRequest,
    PipelineConfiguration,
    SearchConfiguration,
    check_pipeline,
    search_spec,
)
from control_plane.errors import BadRequestError


def search(**options: object) -> SearchConfiguration:
    return SearchConfiguration(kind="search", options=options)


def test_search_options_become_the_spec_with_the_question_and_size() -> None:
    spec = search_spec(search(fusion_method="weighted", boosts=False, rerank=True), "statin myopathy", 7, "a")
    assert (spec.query, spec.size, spec.fusion_method, spec.boosts, spec.rerank) == (
        "statin myopathy",
        7,
        "weighted",
        False,
        True,
    )


def test_a_bad_option_is_named_with_its_configuration() -> None:
    with pytest.raises(BadRequestError, match=r"^configuration b: options\.fusion_method: Input should be"):
        search_spec(search(fusion_method="median"), "q", 10, "b")
    with pytest.raises(BadRequestError, match=r"^configuration a: options\.colour: not a known field"):
        search_spec(search(colour="red"), "q", 10, "a")


def test_the_question_and_size_are_the_consoles() -> None:
    with pytest.raises(BadRequestError, match=r"configuration a: options must not set \['query', 'size'\]"):
        search_spec(search(query="other", size=3), "q", 10, "a")


def test_a_column_is_a_chunk_list() -> None:
    with pytest.raises(BadRequestError, match="granularity 'document': the console compares chunk lists"):
        search_spec(search(granularity="document"), "q", 10, "b")


def test_an_unknown_pipeline_is_refused_with_the_known_ones() -> None:
    configuration = PipelineConfiguration(kind="pipeline", pipeline="clinical-median")
    with pytest.raises(
        BadRequestError,
        match=r"configuration a: unknown pipeline 'clinical-median'; known: clinical-minmax, hybrid-rrf$",
    ):
        check_pipeline(configuration, ["clinical-minmax", "hybrid-rrf"], "a")
    with pytest.raises(BadRequestError, match=r"known: none \(run `biohybrid apply`\)"):
        check_pipeline(configuration, [], "a")
    check_pipeline(configuration, ["clinical-median"], "a")  # a known one passes


def test_the_request_reads_each_configuration_by_its_kind() -> None:
    wanted = CompareRequest.model_validate(
        {
            "question": "q",
            "a": {"kind": "pipeline", "pipeline": "clinical-rrf", "index": "chunks-demo"},
            "b": {"kind": "search", "options": {"boosts": True}},
        }
    )
    assert isinstance(wanted.a, PipelineConfiguration) and isinstance(wanted.b, SearchConfiguration)
    assert wanted.size == 10


@pytest.mark.parametrize(
    ("b", "field"),
    [
        ({"kind": "sql"}, "b"),
        ({"pipeline": "hybrid-rrf"}, "b"),
        ({"kind": "pipeline"}, "b.pipeline.pipeline"),
        ({"kind": "pipeline", "pipeline": "x", "index": "Bad Index"}, "b.pipeline.index"),
        ({"kind": "search", "pipeline": "x"}, "b.search.pipeline"),
    ],
)
def test_a_malformed_configuration_fails_validation_at_its_field(b: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        CompareRequest.model_validate({"question": "q", "a": {"kind": "search"}, "b": b})
    assert [".".join(map(str, e["loc"])) for e in caught.value.errors()] == [field]
