"""The search answer: typed results and metadata (the API's JSON and OpenAPI schema come from these),
and the functions that read them out of an OpenSearch hit."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from control_plane.query.components import COMPONENTS
from control_plane.search.facet_types import Facet
from control_plane.search.facets import parse_facets


class Highlight(BaseModel):
    start: int = Field(description="character offset into the result's text")
    end: int
    text: str


class ComponentScores(BaseModel):
    """Each component's score for the hit as OpenSearch computed it; null when that component did
    not retrieve the hit (or was not used). A deployment's own component beyond these three is carried
    under its name."""

    model_config = ConfigDict(extra="allow")

    bm25: float | None = None
    splade: float | None = None
    dense: float | None = None
    reranker: float | None = None


class LayoutBox(BaseModel):
    page: int = Field(description="page number, from 1")
    x0: float = Field(description="left edge, PDF points from the page's left")
    top: float = Field(description="top edge, PDF points from the page's top")
    x1: float
    bottom: float


class Layout(BaseModel):
    """Where a chunk's text sits on its source pages (PDF sources): the boxes of its lines."""

    pages: list[int]
    boxes: list[LayoutBox]


class ChunkResult(BaseModel):
    chunk_id: str
    doc_id: str
    text: str
    title_path: str | None = None
    section: str | None = None
    section_label: str | None = None
    intent_hint: str | None = None
    is_table: bool = False
    near_empty: bool = Field(False, description="a section stub (e.g. only a time frame): never routed to")
    source: str | None = None
    doc_type: str | None = None
    publication_date: str | None = None
    start: int | None = Field(None, description="offset of the text in the document's canonical text")
    end: int | None = None
    score: float
    component_scores: ComponentScores = Field(default_factory=ComponentScores)
    normalized_scores: ComponentScores | None = Field(
        None, description="each component's normalised score from OpenSearch's explanation (explain=true)"
    )
    highlights: list[Highlight] = Field(default_factory=list)
    merged_from: list[str] = Field(default_factory=list, description="chunk ids merged into this one")
    facets: Facet | None = Field(
        None,
        description="facet granularity: the chunk's structured facts (facet_json) parsed, by kind; null "
        "at other granularities or when facet_error says why they could not be read",
    )
    facet_error: str | None = Field(
        None, description="facet granularity: why the stored facts could not be parsed (facets is null)"
    )
    layout: Layout | None = Field(
        None,
        description="PDF sources: the pages and line boxes the text was read from; null for sources "
        "without pages",
    )


class DocumentResult(BaseModel):
    doc_id: str
    score: float = Field(description="aggregate of its chunks' scores (max by default)")
    title_path: str | None = None
    source: str | None = None
    chunks: list[ChunkResult] = Field(description="the document's best chunks, best first")


class IntentInfo(BaseModel):
    name: str
    confidence: float
    matched: list[str] = Field(default_factory=list)


class BoostInfo(BaseModel):
    intent: str
    field: str
    values: list[Any]
    factor: float
    reason: str
    tables_only: bool = Field(False, description="only table chunks of these values take it")


class Timings(BaseModel):
    total_ms: float
    encode_ms: dict[str, float] = Field(
        default_factory=dict, description="each component encoded in time (dropped ones are absent)"
    )
    encode_wall_ms: float = Field(0.0, description="the whole encoding step, deadline waits included")
    opensearch_ms: float | None = Field(
        None, description="OpenSearch's own `took` of the answered request (excludes the rerank step)"
    )
    opensearch_round_trip_ms: float = Field(
        0.0, description="every OpenSearch request of this search and its rerank call, client-side"
    )
    postprocess_ms: float = Field(0.0, description="ties, aggregation, merging, highlights")
    components_ms: dict[str, float] | None = Field(
        None, description="time OpenSearch spent in each sub-query (profile=true)"
    )


class ShardCounts(BaseModel):
    """How many shards answered (OpenSearch's ``_shards``). With a node down and no replica of one of
    its shards, OpenSearch answers from the rest: ``failed`` > 0 and ``partial`` say the results are
    short, never silently."""

    total: int = 0
    successful: int = 0
    skipped: int = 0
    failed: int = 0

    @property
    def partial(self) -> bool:
        return self.failed > 0 or self.successful + self.skipped < self.total

    @classmethod
    def of(cls, response: Mapping[str, Any]) -> ShardCounts:
        shards = response.get("_shards") or {}
        return cls(**{key: int(shards.get(key, 0)) for key in ("total", "successful", "skipped", "failed")})


CacheStatus = Literal["hit", "miss", "bypass", "off"]


class CacheInfo(BaseModel):
    """Whether the answer came from the API's query cache (settings ``search.cache``). ``bypass``: the
    cache is on but could not be keyed (the model's digest or the index state unknown)."""

    response: CacheStatus = Field("off", description="the whole answer served from the response cache")
    encodings: dict[str, CacheStatus] = Field(
        default_factory=dict, description="per component the API encodes (dense, splade): cached or encoded"
    )
    state_ms: float | None = Field(
        None, description="reading the index state the response cache is keyed by (with the cache on)"
    )


class FusionInfo(BaseModel):
    method: str
    weights: dict[str, float] | None = None
    rank_constant: int | None = None


class SearchMetadata(BaseModel):
    query: str
    query_type: str
    granularity: str
    fusion: FusionInfo
    components_used: list[str]
    component_errors: list[str] = Field(default_factory=list)
    absent_records: list[str] = Field(
        default_factory=list,
        description="registry ids (NCT, PMID, PMCID, DOI) the question names that no record it may see "
        "carries: nothing was routed in their name, the hits are the fused ranking of the rest",
    )
    reranked: bool = False
    reranker_model: str | None = None
    reranker_error: str | None = None
    intents: list[IntentInfo] = Field(default_factory=list)
    boosts: list[BoostInfo] = Field(default_factory=list)
    facet_boost: float | None = Field(
        None,
        description="the factor facet_json's BM25 weight was multiplied by (a clinical intent, boosts on; "
        "search.facets.intent_boost); null: not raised",
    )
    total_candidates: int
    shards: ShardCounts = Field(default_factory=ShardCounts)
    partial: bool = Field(False, description="some shards did not answer: results may be missing hits")
    from_: int = Field(alias="from")
    size: int
    timings: Timings
    cache: CacheInfo = Field(default_factory=CacheInfo)

    model_config = {"populate_by_name": True}


class SearchResponse(BaseModel):
    results: list[ChunkResult] | list[DocumentResult]
    metadata: SearchMetadata


def component_scores(hit: Mapping[str, Any], reranked: bool) -> ComponentScores:
    """Raw per-component scores from the hit's named queries (include_named_queries_score)."""
    matched = hit.get("matched_queries") or {}
    scores = matched if isinstance(matched, Mapping) else {}
    values = {name: _float(scores.get(name)) for name in COMPONENTS}
    return ComponentScores(**values, reranker=float(hit["_score"]) if reranked else None)


def normalized_scores(hit: Mapping[str, Any], components: Sequence[str]) -> ComponentScores | None:
    """Normalised per-component scores from the hybrid explanation. The explanation lists only the
    sub-queries that matched the hit, in sub-query order; the named-query scores say which those are."""
    explanation = hit.get("_explanation")
    if not isinstance(explanation, Mapping):
        return None
    matched = hit.get("matched_queries") or {}
    present = [name for name in COMPONENTS if name in components and name in matched]
    details = _fusion_details(explanation)
    if len(details) != len(present):
        return None
    values = {name: float(detail["value"]) for name, detail in zip(present, details, strict=True)}
    return ComponentScores(**values)


def _fusion_details(explanation: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The per-sub-query entries of a hybrid explanation (under the rerank wrapper if any)."""
    node: Mapping[str, Any] = explanation
    while True:
        details = node.get("details") or []
        description = str(node.get("description", ""))
        if "combination" in description or "rrf" in description.lower():
            return list(details)
        if len(details) != 1:
            return list(details)
        node = details[0]


def chunk_result(
    hit: Mapping[str, Any], reranked: bool, components: Sequence[str], facets: bool = False
) -> ChunkResult:
    """The hit as a result; ``facets`` (facet granularity): with its facet_json parsed."""
    source: Mapping[str, Any] = hit.get("_source") or {}
    parsed = parse_facets(_facet_text(source.get("facet_json")), source.get("section")) if facets else None
    return ChunkResult(
        chunk_id=str(source.get("chunk_id", hit.get("_id"))),
        doc_id=str(source.get("doc_id", "")),
        text=str(source.get("text", "")),
        title_path=source.get("title_path"),
        section=source.get("section"),
        section_label=source.get("section_label"),
        intent_hint=source.get("intent_hint"),
        is_table=bool(source.get("is_table", False)),
        near_empty=bool(source.get("near_empty", False)),
        source=source.get("source"),
        doc_type=source.get("doc_type"),
        publication_date=source.get("publication_date"),
        start=source.get("start"),
        end=source.get("end"),
        score=float(hit.get("_score") or 0.0),
        component_scores=component_scores(hit, reranked),
        normalized_scores=normalized_scores(hit, components),
        facets=parsed.facets if parsed else None,
        facet_error=parsed.error if parsed else None,
        layout=_layout(source.get("layout")),
    )


def _layout(value: Any) -> Layout | None:
    """The stored layout object (a chunk of a PDF source); anything else reads as none."""
    if not isinstance(value, Mapping):
        return None
    return Layout.model_validate(value)


def _facet_text(value: Any) -> str | None:
    """facet_json as stored: a JSON string (an object stored unquoted is read as itself)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
