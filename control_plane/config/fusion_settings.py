"""Settings ``fusion``: how the three sub-queries (bm25, splade, dense) are fused: min-max weights,
reciprocal rank fusion, and weights per query type; and the choice of a search's weights from them
(``FusionSettings.weighted_weights``, ``rrf_weights``), which /v1/search makes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import Field, model_validator

from control_plane.config.strict import StrictSettings
from control_plane.fusion.weights import weights_in_use

WEIGHT_SUM_TOLERANCE = 0.01


def check_weights_sum(weights: list[float]) -> None:
    """Refuse fusion weights that do not sum to 1 ± 0.01 (OpenSearch demands 1.0 for min-max fusion)."""
    total = sum(weights)
    if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
        raise ValueError(
            f"fusion weights must sum to 1 (±{WEIGHT_SUM_TOLERANCE}); got {weights} summing to {total:.4f}"
        )


class FusionWeights(StrictSettings):
    """Fusion weights in sub-query order, summing to 1 (± 0.01), for min-max or weighted RRF; chosen on
    dev splits: model_artifacts/reports/fusion-grid/."""

    bm25: float = Field(0.20, ge=0, le=1, description="weight of the BM25 sub-query")
    splade: float = Field(0.20, ge=0, le=1, description="weight of the SPLADE sub-query")
    dense: float = Field(0.60, ge=0, le=1, description="weight of the dense (k-NN) sub-query")

    @model_validator(mode="after")
    def _sum_to_one(self) -> FusionWeights:
        check_weights_sum([self.bm25, self.splade, self.dense])
        return self

    def in_order(self) -> list[float]:
        """Weights in hybrid sub-query order (bm25, splade, dense)."""
        return [self.bm25, self.splade, self.dense]


class RrfSettings(StrictSettings):
    """Reciprocal rank fusion."""

    rank_constant: int = Field(
        60, ge=1, description="RRF's k, the product's constant (the fusion-grid report compares others)"
    )
    weights: FusionWeights | None = Field(
        None,
        description="weighted RRF: each component's reciprocal rank times its weight (OpenSearch 3.1+'s "
        "score-ranker weights); null: classic RRF, every component counted once",
    )


class QueryTypeWeights(StrictSettings):
    """Weighted-fusion weights per query type (control_plane.clinical.query_types), used by /v1/search
    when a request names no weights; None: the global ``fusion.weights``. Identifiers favour exact
    terms; the other types earned no weights of their own on dev
    (model_artifacts/reports/query-type-weights/dev.md)."""

    exact_term: FusionWeights | None = Field(
        FusionWeights(bm25=0.5, splade=0.1, dense=0.4),
        description="identifiers, gene symbols, queries of 1-3 words",
    )
    paraphrase: FusionWeights | None = Field(None, description="paraphrased questions (null: fusion.weights)")
    complex: FusionWeights | None = Field(
        None, description="long, multi-part questions (null: fusion.weights)"
    )


class FusionSettings(StrictSettings):
    """How the search pipelines and /v1/search fuse the three sub-queries."""

    weights: FusionWeights = FusionWeights()
    rrf: RrfSettings = RrfSettings()
    weights_by_query_type_enabled: bool = Field(
        True,
        description="/v1/search with weighted fusion and no weights: true gives a query its type's weights "
        "(fusion.weights_by_query_type), false always fusion.weights",
    )
    weights_by_query_type: QueryTypeWeights = QueryTypeWeights()

    def weighted_weights(
        self, requested: Mapping[str, float] | None, query_type: str, components: Sequence[str]
    ) -> dict[str, float]:
        """Min-max's weights for a search: the request's, else the configured ones (its query type's
        when enabled and set), kept for the components in use and rescaled to sum to 1."""
        if requested is not None:
            return weights_in_use(requested, components)
        typed = (
            getattr(self.weights_by_query_type, query_type, None)
            if self.weights_by_query_type_enabled
            else None
        )
        return weights_in_use((typed or self.weights).model_dump(), components)

    def rrf_weights(
        self, requested: Mapping[str, float] | None, components: Sequence[str]
    ) -> dict[str, float] | None:
        """Weighted RRF's weights for a search: the request's, else ``rrf.weights``, kept for the
        components in use and rescaled to sum to 1; None when neither names any (classic RRF)."""
        chosen = requested if requested is not None else self.rrf.weights
        if chosen is None:
            return None
        return weights_in_use(chosen if isinstance(chosen, Mapping) else chosen.model_dump(), components)
