"""Evaluation configurations: named partial search specs, with ``+rerank`` / ``+boosts`` variants.

A configuration fixes what a run compares (components, fusion, weights, rerank, clinical boosts);
the query text, depth and granularity come from the run. Names are data (config/evaluation.yaml), so
adding a configuration needs no code; ``hybrid-rrf+rerank+boosts`` is the ``hybrid-rrf`` base with
both variants switched on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from control_plane.search.spec import Component, FusionMethod, SearchSpec

VARIANT_SEPARATOR = "+"


class EvalConfiguration(BaseModel):
    """One retrieval configuration under test; validated by building a SearchSpec from it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field("", description="set from the configuration's key or the variant name")
    components: tuple[Component, ...] = ("bm25", "splade", "dense")
    fusion_method: FusionMethod = "rrf"
    weights: dict[Component, float] | None = None
    rank_constant: int = Field(60, ge=1)
    rerank: bool = False
    rerank_top_n: int | None = Field(None, ge=1, le=500)
    boosts: bool = False
    candidate_depth: int | None = Field(None, ge=1, le=1000, description="None: the run's candidate_depth")

    @model_validator(mode="after")
    def _valid_as_search(self) -> EvalConfiguration:
        self.search_spec("validation", size=10, candidate_depth=self.candidate_depth or 100)
        return self

    @property
    def is_hybrid(self) -> bool:
        return len(self.components) > 1

    def search_spec(self, query: str, size: int, candidate_depth: int) -> SearchSpec:
        """The document-level SearchSpec for one query; ``candidate_depth`` applies unless overridden."""
        return SearchSpec(
            query=query,
            size=size,
            components=self.components,
            fusion_method=self.fusion_method,
            weights=self.weights,
            rank_constant=self.rank_constant,
            rerank=self.rerank,
            rerank_top_n=self.rerank_top_n,
            boosts=self.boosts,
            candidate_depth=self.candidate_depth or candidate_depth,
            granularity="document",
            explain=False,
            highlight=False,
        )


def _with_rerank(configuration: EvalConfiguration) -> EvalConfiguration:
    return configuration.model_copy(update={"rerank": True})


def _with_boosts(configuration: EvalConfiguration) -> EvalConfiguration:
    return configuration.model_copy(update={"boosts": True})


VARIANTS: dict[str, Callable[[EvalConfiguration], EvalConfiguration]] = {
    "rerank": _with_rerank,
    "boosts": _with_boosts,
}


def resolve_configuration(name: str, bases: Mapping[str, EvalConfiguration]) -> EvalConfiguration:
    """``base[+variant...]`` -> the configuration; ValueError naming the unknown part and the known ones."""
    base_name, *variants = name.strip().split(VARIANT_SEPARATOR)
    if base_name not in bases:
        raise ValueError(
            f"unknown configuration {base_name!r} in {name!r}; known: {', '.join(bases)} "
            f"(variants: {', '.join(f'+{v}' for v in VARIANTS)})"
        )
    if len(set(variants)) != len(variants):
        raise ValueError(f"configuration {name!r} repeats a variant")
    configuration = bases[base_name]
    for variant in variants:
        if variant not in VARIANTS:
            raise ValueError(
                f"unknown variant {variant!r} in {name!r}; known: {', '.join(f'+{v}' for v in VARIANTS)}"
            )
        configuration = VARIANTS[variant](configuration)
    return configuration.model_copy(update={"name": name.strip()})


def resolve_configurations(
    names: Sequence[str], bases: Mapping[str, EvalConfiguration]
) -> list[EvalConfiguration]:
    """Each name resolved, in order; refuses a name given twice (its runs would overwrite each other)."""
    if len(set(names)) != len(names):
        raise ValueError(f"configurations repeat a name: {list(names)}")
    return [resolve_configuration(name, bases) for name in names]
