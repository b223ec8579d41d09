"""What a search asks for, validated at the boundary: the API's JSON body, the evaluator's
configurations and the CLI all become one ``SearchSpec``."""

from __future__ import annotations

import math
from datetime import date
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from control_plane.clinical.client_forms import MAX_QUESTION_CHARS
from control_plane.fusion.methods import FusionMethod
from control_plane.query.components import COMPONENT_ORDER, COMPONENTS
from control_plane.search.odata.expression import SortKey
from control_plane.search.odata.syntax import parse_filter, parse_orderby
from control_plane.words.visible import has_visible_character


def _known_component(name: str) -> str:
    """A component of ``COMPONENTS`` (read when a spec is validated, so one added there is known)."""
    if name not in COMPONENTS:
        raise ValueError(f"unknown component {name!r}: one of {list(COMPONENTS)}")
    return name


Component = Annotated[
    str, AfterValidator(_known_component), WithJsonSchema({"type": "string", "enum": list(COMPONENT_ORDER)})
]
Granularity = Literal["chunk", "document", "facet"]
WEIGHT_TOLERANCE = 0.01
# The window check's depth when a spec leaves it to configuration (checked again once resolved).
DEFAULT_CANDIDATE_DEPTH = 100


class DateRange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gte: date | None = None
    lte: date | None = None

    @model_validator(mode="after")
    def _ordered(self) -> DateRange:
        if self.gte and self.lte and self.gte > self.lte:
            raise ValueError(f"publication_date.gte ({self.gte}) is after lte ({self.lte})")
        return self


class Filters(BaseModel):
    """User filters; each list matches any of its values (keyword fields of the chunk mapping)."""

    model_config = ConfigDict(extra="forbid")

    source: list[str] = Field(default_factory=list, description="e.g. beir, pmc, ctgov, medline")
    publication_date: DateRange | None = None
    section: list[str] = Field(default_factory=list, description="section kinds, e.g. eligibility")
    intent: list[str] = Field(default_factory=list, description="chunk intent_hint values, e.g. ae")
    doc_type: list[str] = Field(default_factory=list)
    expression: str | None = Field(
        None,
        description="an OData $filter expression over source, doc_type, section, intent and "
        "publication_date (eq ne gt ge lt le, in, and or not, parentheses), ANDed with the lists above "
        "and the tenant",
    )

    @field_validator("expression")
    @classmethod
    def _parses(cls, value: str | None) -> str | None:
        if value is not None:
            parse_filter(value)  # an ODataError (a ValueError) names the position and the token
        return value


class SearchSpec(BaseModel):
    """One search. ``weights``: min-max's, or weighted RRF's with fusion_method rrf; None means the
    configured weights (min-max: the query type's; RRF: ``fusion.rrf.weights``, classic when null)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    query: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    size: int = Field(10, ge=1, le=200, description="results per page (k)")
    from_: int = Field(0, ge=0, alias="from", description="offset of the page")
    components: tuple[Component, ...] = Field(
        COMPONENT_ORDER,
        min_length=1,
        json_schema_extra={"uniqueItems": True, "maxItems": len(COMPONENT_ORDER)},
    )
    fusion_method: FusionMethod = "rrf"
    weights: dict[Component, float] | None = None
    rank_constant: int = Field(60, ge=1, le=10000, description="RRF k (OpenSearch accepts 1 to 10000)")
    rerank: bool = False
    rerank_top_n: int | None = Field(None, ge=1, le=500)
    boosts: bool = Field(True, description="clinical intent and table-routing boosts")
    query_intent: list[str] | None = Field(None, description="override the detected intents")
    filters: Filters = Field(default_factory=Filters)
    candidate_depth: int | None = Field(
        None, ge=1, le=1000, description="hits per component before fusion (default: search.candidate_depth)"
    )
    granularity: Granularity = Field(
        "chunk",
        description="chunk: ranked chunks; document: each document once with its best chunks; facet: only "
        "chunks that carry structured facts (facet_json), each with its facts parsed into `facets`",
    )
    explain: bool = Field(False, description="normalised per-component scores from OpenSearch's explanation")
    profile: bool = Field(False, description="per-component timings from OpenSearch's profiler")
    highlight: bool = True
    merge_neighbours: bool = False
    order_by: tuple[SortKey, ...] = Field(
        (),
        description="the page's order: empty for relevance; else keys such as publication_date desc (an "
        "OData $orderby string or a list of {field, direction}), applied to the fused candidates "
        "before paging",
    )

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not has_visible_character(value):
            raise ValueError("query is blank (no visible character): send the words to search for")
        return value

    @field_validator("order_by", mode="before")
    @classmethod
    def _orderby_text(cls, value: object) -> object:
        return parse_orderby(value) if isinstance(value, str) else value

    @field_validator("components")
    @classmethod
    def _components(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError(f"components must be a non-empty subset of {list(COMPONENTS)}")
        if len(set(value)) != len(value):
            raise ValueError(f"components repeat a name: {list(value)}")
        return tuple(name for name in COMPONENTS if name in value)

    @model_validator(mode="after")
    def _page_within_candidates(self) -> SearchSpec:
        """Pages are cut from one fused list of at most candidate_depth hits per component (or the
        rerank depth): a page past its end is a client error, not an empty answer."""
        depth = self.candidate_depth or DEFAULT_CANDIDATE_DEPTH
        window = depth * len(self.components)
        if self.from_ + self.size > window:
            raise ValueError(
                f"from + size ({self.from_ + self.size}) is past the fused candidate list "
                f"({depth} per component x {len(self.components)} = {window}); raise "
                "candidate_depth or ask for an earlier page"
            )
        return self

    @model_validator(mode="after")
    def _weights(self) -> SearchSpec:
        if self.weights is None:
            return self
        if not all(math.isfinite(w) for w in self.weights.values()):
            raise ValueError(f"weights must be finite numbers, got {dict(self.weights)}")
        if set(self.weights) != set(self.components):
            raise ValueError(
                f"weights must name exactly the components {list(self.components)}, "
                f"got {sorted(self.weights)}"
            )
        total = sum(self.weights.values())
        if abs(total - 1.0) > WEIGHT_TOLERANCE or any(w < 0 for w in self.weights.values()):
            raise ValueError(f"weights must be >= 0 and sum to 1 +/- {WEIGHT_TOLERANCE}, got sum {total:.4f}")
        return self
