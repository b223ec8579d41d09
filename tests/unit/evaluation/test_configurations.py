"""Configurations: names with variants resolve to partial search specs; bad ones say what is known."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from control_plane.evaluation.configurations import (
    EvalConfiguration,
    resolve_configuration,
    resolve_configurations,
)

BASES = {
    "bm25": EvalConfiguration(name="bm25", components=("bm25",)),
    "hybrid-minmax": EvalConfiguration(
        name="hybrid-minmax",
        components=("dense", "bm25", "splade"),
        fusion_method="weighted",
        weights={"bm25": 0.3, "splade": 0.35, "dense": 0.35},
    ),
}


def test_variants_switch_on_rerank_and_boosts_and_keep_the_name() -> None:
    plain = resolve_configuration("hybrid-minmax", BASES)
    both = resolve_configuration("hybrid-minmax+rerank+boosts", BASES)
    assert (plain.rerank, plain.boosts) == (False, False)
    assert (both.rerank, both.boosts, both.name) == (True, True, "hybrid-minmax+rerank+boosts")
    assert both.weights == plain.weights and both.fusion_method == "weighted"


def test_rerank_at_a_depth_reranks_only_the_fused_top_n() -> None:
    at_20 = resolve_configuration("hybrid-minmax+rerank@20", BASES)
    assert (at_20.rerank, at_20.rerank_top_n, at_20.name) == (True, 20, "hybrid-minmax+rerank@20")
    assert resolve_configuration("hybrid-minmax+rerank", BASES).rerank_top_n is None  # the settings' depth
    spec = at_20.search_spec("warfarin", size=100, candidate_depth=300)
    assert spec.rerank and (spec.rerank_top_n, spec.size) == (20, 20)  # the processor returns what it scored


def test_search_spec_is_document_level_with_the_run_depths() -> None:
    spec = resolve_configuration("hybrid-minmax+boosts", BASES).search_spec(
        "warfarin", size=100, candidate_depth=300
    )
    assert spec.granularity == "document"
    assert (spec.size, spec.candidate_depth) == (100, 300)
    assert spec.components == ("bm25", "splade", "dense")  # sub-query order, whatever the input order
    assert spec.boosts and not spec.rerank and not spec.highlight
    deeper = EvalConfiguration(components=("bm25",), candidate_depth=500).search_spec("x", 10, 300)
    assert deeper.candidate_depth == 500


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bm42", "unknown configuration 'bm42'"),
        ("bm25+fast", "unknown variant 'fast'"),
        ("bm25+rerank+rerank", "repeats a variant"),
        ("bm25+rerank+rerank@20", "repeats a variant"),
        ("bm25+rerank@0", "whole number from 1 to 500, got '0'"),
        ("bm25+rerank@ten", "whole number from 1 to 500, got 'ten'"),
    ],
)
def test_bad_names_say_what_is_known(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        resolve_configuration(name, BASES)
    assert "+rerank" in str(error.value) or "repeats" in message


def test_a_name_given_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="repeat a name"):
        resolve_configurations(["bm25", "bm25"], BASES)


def test_configurations_are_checked_as_search_specs() -> None:
    with pytest.raises(ValidationError, match="weights must name exactly the components"):
        EvalConfiguration(components=("bm25", "dense"), fusion_method="weighted", weights={"bm25": 1.0})
    with pytest.raises(ValidationError, match="sum to 1"):
        EvalConfiguration(
            components=("bm25", "dense"), fusion_method="weighted", weights={"bm25": 0.5, "dense": 0.6}
        )
