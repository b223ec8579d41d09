"""Settings ``search``: how /v1/search behaves: the indices it reads, its budgets and breakers, clinical
routing and facet boosts, the query cache and the two-phase sparse processor."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from control_plane.config.strict import StrictSettings


class SectionRoutingSettings(StrictSettings):
    """Clinical routing inside the records the query is about (control_plane/clinical/section_routing.py)."""

    weight: float = Field(4.0, ge=0, description="lift per unit of (boost factor - 1) at full topicality")
    min_topicality: float = Field(0.8, ge=0, le=1, description="documents scoring less are not routed")
    max_documents: int = Field(3, ge=1, le=100, description="route within at most this many documents")
    depth: int = Field(50, ge=1, le=1000, description="fused chunks routing looks at")
    fetch_sections: bool = Field(True, description="fetch routed sections the fused list missed")
    topicality_outside_asked: bool = Field(
        False,
        description="judge a record's topicality on its chunks routing would not lift (a question about "
        "many records sets it: a trial whose exclusion criteria name the topic is not about it)",
    )
    pipeline_window: int = Field(
        100,
        ge=1,
        le=1000,
        description="fused chunks the clinical search pipelines route over (at least depth: a pipeline "
        "cannot fetch the sections fusion missed, so it routes over a wider window instead)",
    )


class CacheStoreSettings(StrictSettings):
    """One in-memory cache: on or off, its size bound and how long an entry lives."""

    enabled: bool = Field(description="whether this cache is used")
    max_entries: int = Field(gt=0, le=1_000_000, description="entries kept (least recently used dropped)")
    ttl_s: float = Field(gt=0, description="seconds an entry lives")


class QueryCacheSettings(StrictSettings):
    """The API's query cache (control_plane/search/query_cache/)."""

    encoding: CacheStoreSettings = CacheStoreSettings(enabled=True, max_entries=4096, ttl_s=3600)
    response: CacheStoreSettings = CacheStoreSettings(enabled=False, max_entries=512, ttl_s=300)
    models_refresh_s: float = Field(
        60,
        gt=0,
        description="how often the served models' digests are read again from the inference service "
        "(GET /v1/models)",
    )


class FacetSettings(StrictSettings):
    """Structured facts at query time (control_plane/clinical/facet_boost.py)."""

    intent_boost: float = Field(
        2.0,
        ge=1.0,
        le=10.0,
        description="facet_json's BM25 weight is multiplied by this when a clinical intent is detected "
        "(boosts on); 1.0 turns the boost off",
    )
    boost_granularities: tuple[Literal["chunk", "document", "facet"], ...] = Field(
        ("facet",), description="the granularities whose searches get the boost"
    )


class SparseTwoPhaseSettings(StrictSettings):
    """neural-search's ``neural_sparse_two_phase_processor`` (a search request processor): the query's
    tokens above ``prune_ratio`` x its largest weight score every document, the rest only rescore the
    top ``size`` x ``expansion_rate`` hits (at most ``max_window_size``). It rewrites a top-level (or
    bool should) neural_sparse query on a ``rank_features`` field; OpenSearch refuses it on SEISMIC
    fields, and leaves a neural_sparse inside a hybrid query untouched."""

    enabled: bool = Field(False, description="add the processor to every search pipeline")
    prune_ratio: float = Field(
        0.4, ge=0, le=1, description="tokens below this x the largest weight only rescore the top hits"
    )
    expansion_rate: float = Field(5.0, ge=1.0, description="the rescored window is size x this")
    max_window_size: int = Field(10_000, ge=50, description="the rescored window's upper bound")


class SearchSettings(StrictSettings):
    """The /v1/search behaviour: where it looks, its budgets and defaults."""

    index_pattern: str = Field(
        "chunks-*",
        description="the indices /v1/search reads (with index.tenant_indices on, the tenant's own instead)",
    )
    candidate_depth: int = Field(
        100,
        ge=1,
        le=1000,
        description="hits each component contributes before fusion (pagination_depth and k-NN k); pages "
        "are cut from one fused list",
    )
    component_timeout_ms: int = Field(
        300, gt=0, description="a component whose query encoding misses it is dropped (dense_timeout)"
    )
    rerank_timeout_ms: int = Field(
        1500,
        gt=0,
        description="the rerank's budget (/v1/search and the -rerank pipelines' connector): a reranker that "
        "misses it, is overloaded or absent leaves the fused order (reranked false, reranker_error), never "
        "a failed search and never a retry",
    )
    opensearch_timeout_ms: int = Field(5000, gt=0, description="the search request's budget in OpenSearch")
    rerank_requires_gpu: bool = Field(
        True,
        description="rerank only where the service runs the model on a GPU: elsewhere the fused order at "
        "once (reranker_error gpu_unavailable), on both paths; false opts in to CPU rerank",
    )
    breaker_failures: int = Field(
        5,
        ge=0,
        description="query encoding's breaker per model: after this many consecutive failed calls (0: "
        "never) the component fails fast (dense_circuit_open)",
    )
    breaker_reset_s: float = Field(
        30, gt=0, description="seconds an open breaker waits before one probe call"
    )
    intents_file: str = Field(
        "intents.yaml",
        description="clinical intent phrase lists and boost factors (relative to control_plane/config/)",
    )
    section_routing: SectionRoutingSettings = SectionRoutingSettings()
    facets: FacetSettings = FacetSettings()
    cache: QueryCacheSettings = QueryCacheSettings()
    sparse_two_phase: SparseTwoPhaseSettings = SparseTwoPhaseSettings()
