"""Evaluation configurations: named partial search specs, with ``+rerank`` / ``+boosts`` variants.

A configuration fixes what a run compares (components, fusion, weights, rerank, clinical boosts);
the query text, depth and granularity come from the run. Names are data (config/evaluation.yaml), so
adding a configuration needs no code; ``hybrid-rrf+rerank+boosts`` is the ``hybrid-rrf`` base with
both variants switched on, and ``hybrid-minmax+rerank@20`` searches only the fused top 20 hits (depth
and blend are chosen with benchmarks/rerank_blend/).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from control_plane.fusion.methods import FusionMethod
from control_plane.search.spec import Component, SearchSpec

VARIANT_SEPARATOR = "+"


class EvalConfiguration(BaseModel):
    """One retrieval configuration under test; validated by building a SearchSpec from it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field("", description="set from the configuration's key or the variant name")
    components: tuple[Component, ...] = Field(
        ("bm25", "splade", "dense"), description="the sub-queries searched"
    )
    fusion_method: FusionMethod = Field("rrf", description="rrf or weighted (min-max)")
    weights: dict[Component, float] | None = Field(
        None, description="weighted fusion's weights (null: the service's per-query-type weights)"
    )
    rank_constant: int = Field(60, ge=1, description="RRF's k")
    rerank: bool = Field(False, description="rerank the fused candidates (the +rerank variant)")
    rerank_top_n: int | None = Field(
        None, ge=1, le=500, description="rerank only the fused top N (+rerank@N)"
    )
    boosts: bool = Field(False, description="clinical intent boosts and routing (the +boosts variant)")
    candidate_depth: int | None = Field(None, ge=1, le=1000, description="None: the run's candidate_depth")

    @model_validator(mode="after")
    def _valid_as_search(self) -> EvalConfiguration:
        self.search_spec("validation", size=10, candidate_depth=self.candidate_depth or 100)
        return self

    @property
    def is_hybrid(self) -> bool:
        return len(self.components) > 1

    def search_spec(self, query: str, size: int, candidate_depth: int) -> SearchSpec:
        """The document-level SearchSpec for one query; ``candidate_depth`` applies unless overridden.
        ``+rerank`` reranks the registered depth (models.rerank_top_n) and keeps every hit below it in
        fused order, so its Recall@100 is comparable. ``+rerank@N`` asks for N hits only (the first
        min(N, depth) of them reranked; metrics past N are not comparable)."""
        if self.rerank and self.rerank_top_n is not None:
            size = min(size, self.rerank_top_n)
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
RERANK_AT = "rerank@"
KNOWN_VARIANTS = ", ".join([*(f"+{v}" for v in VARIANTS), f"+{RERANK_AT}N"])


def _apply_variant(configuration: EvalConfiguration, variant: str, name: str) -> EvalConfiguration:
    if variant in VARIANTS:
        return VARIANTS[variant](configuration)
    if variant.startswith(RERANK_AT):
        depth = variant.removeprefix(RERANK_AT)
        if not depth.isdigit() or not 1 <= int(depth) <= 500:
            raise ValueError(f"rerank depth in {name!r} must be a whole number from 1 to 500, got {depth!r}")
        return configuration.model_copy(update={"rerank": True, "rerank_top_n": int(depth)})
    raise ValueError(f"unknown variant {variant!r} in {name!r}; known: {KNOWN_VARIANTS}")


def resolve_configuration(name: str, bases: Mapping[str, EvalConfiguration]) -> EvalConfiguration:
    """``base[+variant...]`` -> the configuration; ValueError naming the unknown part and the known ones."""
    base_name, *variants = name.strip().split(VARIANT_SEPARATOR)
    if base_name not in bases:
        raise ValueError(
            f"unknown configuration {base_name!r} in {name!r}; known: {', '.join(bases)} "
            f"(variants: {KNOWN_VARIANTS})"
        )
    kinds = [v.split("@")[0] for v in variants]
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"configuration {name!r} repeats a variant")
    configuration = bases[base_name]
    for variant in variants:
        configuration = _apply_variant(configuration, variant, name)
    return configuration.model_copy(update={"name": name.strip()})


def resolve_configurations(
    names: Sequence[str], bases: Mapping[str, EvalConfiguration]
) -> list[EvalConfiguration]:
    """Each name resolved, in order; refuses a name given twice (its runs would overwrite each other)."""
    if len(set(names)) != len(names):
        raise ValueError(f"configurations repeat a name: {list(names)}")
    return [resolve_configuration(name, bases) for name in names]
