"""One search, end to end: intents and boosts, query type and weights, query encoding with per-component
deadlines, one OpenSearch request (fusion and rerank inside OpenSearch), degradation, and the answer.

Degradation: a component whose encoding fails or misses its deadline is dropped before the request
(`component_errors`: ``splade_timeout``...). A reranked request that fails or times out is re-sent
without the rerank processor (`reranked=false`, `reranker_error`). All components failing raises
``SearchUnavailableError`` (HTTP 503 with the reasons).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionTimeout, TransportError

from control_plane.config.settings import Settings
from control_plane.errors import UnavailableError
from control_plane.fusion.rrf import order_by_score_then_rank
from control_plane.mlcommons.registry import deployed_model_ids
from control_plane.search.boosting import IntentPlan, plan_intents
from control_plane.search.encoders import ComponentError, InferenceClient, run_with_deadline
from control_plane.search.intents import Boost
from control_plane.search.postprocess import shape_results, source_side_fields
from control_plane.search.query_types import classify_query
from control_plane.search.request import OpenSearchRequest, QueryEncodings, build_request
from control_plane.search.results import (
    BoostInfo,
    ChunkResult,
    FusionInfo,
    IntentInfo,
    SearchMetadata,
    SearchResponse,
    Timings,
    chunk_result,
)
from control_plane.search.routing import route_chunks, topical_records
from control_plane.search.sections import fetch_sections
from control_plane.search.spec import SearchSpec

log = logging.getLogger(__name__)
MODEL_IDS_TTL_S = 30.0
GPU_PROVIDER = "CUDAExecutionProvider"


class SearchUnavailableError(UnavailableError, RuntimeError):
    """No component could serve the query; ``reasons`` lists why, one per component."""

    def __init__(self, reasons: Sequence[str]) -> None:
        super().__init__("no retrieval component is available: " + "; ".join(reasons))
        self.reasons = list(reasons)

    @property
    def details(self) -> list[str]:
        return self.reasons


@dataclass
class SearchPlan:
    """Everything decided before OpenSearch is called; `/v1/rewrite` returns ``request``."""

    spec: SearchSpec
    tenant_id: str
    index: str
    encodings: QueryEncodings
    request: OpenSearchRequest
    components: list[str]
    weights: dict[str, float]
    query_type: str
    intents: IntentPlan
    component_errors: list[str] = field(default_factory=list)
    reranker_error: str | None = None
    rerank_model_id: str | None = None
    encode_ms: dict[str, float] = field(default_factory=dict)
    encode_wall_ms: float = 0.0
    opensearch_round_trip_ms: float = 0.0


class SearchService:
    def __init__(
        self, client: OpenSearch, settings: Settings, inference: InferenceClient | None = None
    ) -> None:
        self.client = client
        self.settings = settings
        self.inference = inference or InferenceClient(
            settings.models.service_url, settings.models.dense, settings.models.sparse
        )
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="encode")
        self._model_ids: tuple[float, dict[str, str]] = (0.0, {})
        self._lock = threading.Lock()

    # -- planning -----------------------------------------------------------------------------------

    def model_ids(self) -> dict[str, str]:
        """Deployed ml-commons model ids by role, cached briefly (they change only on `models register`)."""
        with self._lock:
            fetched_at, ids = self._model_ids
            if time.monotonic() - fetched_at > MODEL_IDS_TTL_S or not ids:
                ids = deployed_model_ids(self.client, self.settings)
                self._model_ids = (time.monotonic(), ids)
            return dict(ids)

    def resolve(self, spec: SearchSpec) -> SearchSpec:
        """Fill what the request left to configuration (the candidate depth), validated again."""
        if spec.candidate_depth is not None:
            return spec
        data = spec.model_dump(by_alias=True)
        data["candidate_depth"] = self.settings.search.candidate_depth
        return SearchSpec.model_validate(data)

    def plan(self, spec: SearchSpec, tenant_id: str, index: str | None = None) -> SearchPlan:
        spec = self.resolve(spec)
        intents = plan_intents(spec, self.settings)
        query_type = str(classify_query(spec.query, [i["name"] for i in intents.intents]))
        encode_started = time.perf_counter()
        encodings, components, errors, encode_ms = self._encode(spec)
        encode_wall_ms = round((time.perf_counter() - encode_started) * 1000, 2)
        if not components:
            raise SearchUnavailableError(errors)
        weights = self._weights(spec, query_type, components)
        rerank_id, rerank_error = self._rerank_model(spec)
        plan = SearchPlan(
            spec=spec,
            tenant_id=tenant_id,
            index=index or self.settings.search.index_pattern,
            encodings=encodings,
            request=OpenSearchRequest(index="", body={}),
            components=components,
            weights=weights,
            query_type=query_type,
            intents=intents,
            component_errors=errors,
            reranker_error=rerank_error,
            rerank_model_id=rerank_id,
            encode_ms=encode_ms,
            encode_wall_ms=encode_wall_ms,
        )
        plan.request = self._request(plan, rerank_id)
        return plan

    def _request(self, plan: SearchPlan, rerank_id: str | None) -> OpenSearchRequest:
        return build_request(
            plan.intents.spec,
            self.settings,
            tenant_id=plan.tenant_id,
            index=plan.index,
            components=plan.components,
            weights=plan.weights,
            encodings=plan.encodings,
            routing_depth=self.settings.search.section_routing.depth if plan.intents.boosts else 0,
            rerank_model_id=rerank_id,
            rerank_top_n=plan.spec.rerank_top_n,
            profile=plan.spec.profile,
        )

    def _encode(self, spec: SearchSpec) -> tuple[QueryEncodings, list[str], list[str], dict[str, float]]:
        timeout_s = self.settings.search.component_timeout_ms / 1000
        calls: dict[str, Any] = {}
        doc_only = "splade" in spec.components and self.settings.models.sparse_query_mode == "doc-only"
        doc_only_id = self.model_ids().get("sparse_query") if doc_only else None
        if "dense" in spec.components:
            calls["dense"] = _timed(lambda: self.inference.dense(spec.query, timeout_s))
        if "splade" in spec.components and not doc_only:
            calls["splade"] = _timed(lambda: self.inference.sparse(spec.query, timeout_s))
        results, failures = run_with_deadline(self._pool, calls, timeout_s)
        errors = [failure.code for failure in failures]
        for failure in failures:
            log.warning("component dropped", extra={"component": failure.component, "reason": failure.detail})
        if doc_only and not doc_only_id:
            errors.append("splade_unavailable")
        usable: list[str] = [
            name
            for name in spec.components
            if name == "bm25" or name in results or (name == "splade" and doc_only_id)
        ]
        encodings = QueryEncodings(
            dense_vector=results["dense"][0] if "dense" in results else None,
            sparse_tokens=results["splade"][0] if "splade" in results else None,
            sparse_model_id=doc_only_id,
        )
        encode_ms = {name: round(value[1] * 1000, 2) for name, value in results.items()}
        return encodings, usable, errors, encode_ms

    def _weights(self, spec: SearchSpec, query_type: str, components: Sequence[str]) -> dict[str, float]:
        """The request's weights, else the configured ones (per query type when enabled), restricted to
        the components in use and rescaled to sum to 1."""
        if spec.weights is not None:
            chosen: Mapping[str, float] = {str(name): w for name, w in spec.weights.items()}
        else:
            fusion = self.settings.fusion
            typed = (
                getattr(fusion.weights_by_query_type, query_type)
                if fusion.weights_by_query_type_enabled
                else None
            )
            chosen = (typed or fusion.weights).model_dump()
        kept = {name: float(chosen.get(name, 0.0)) for name in components}
        total = sum(kept.values())
        if total <= 0:
            return {name: 1.0 / len(components) for name in components}
        return {name: value / total for name, value in kept.items()}

    def _rerank_model(self, spec: SearchSpec) -> tuple[str | None, str | None]:
        if not spec.rerank:
            return None, None
        rerank_id = self.model_ids().get("rerank")
        if rerank_id is None:
            return None, "unavailable"
        if self.settings.search.rerank_requires_gpu:
            try:
                providers = self.inference.providers(self.settings.search.component_timeout_ms / 1000)
            except ComponentError:
                return None, "unavailable"
            if GPU_PROVIDER not in providers.get(self.settings.models.rerank, []):
                return None, "gpu_unavailable"
        return rerank_id, None

    # -- execution ----------------------------------------------------------------------------------

    def search(self, spec: SearchSpec, tenant_id: str, index: str | None = None) -> SearchResponse:
        started = time.perf_counter()
        plan = self.plan(spec, tenant_id, index)
        spec = plan.spec
        response, reranked = self._execute(plan)
        shaping = time.perf_counter()
        hits = response["hits"]["hits"]
        chunks = [chunk_result(hit, reranked, plan.components) for hit in hits]
        if spec.fusion_method == "rrf" and not reranked:
            chunks = _rrf_ties_by_bm25(chunks)
        if plan.intents.boosts:
            chunks = self._route(plan, chunks)
        embeddings, token_counts = source_side_fields(hits) if spec.merge_neighbours else ({}, {})
        results = shape_results(chunks, spec, embeddings, token_counts)
        postprocess_ms = round((time.perf_counter() - shaping) * 1000, 2)
        metadata = SearchMetadata(
            query=spec.query,
            query_type=plan.query_type,
            granularity=spec.granularity,
            fusion=_fusion_info(spec, plan.weights),
            components_used=plan.components,
            component_errors=plan.component_errors,
            reranked=reranked,
            reranker_model=self.settings.models.rerank if reranked else None,
            reranker_error=plan.reranker_error,
            intents=[IntentInfo(**i) for i in plan.intents.intents],
            boosts=[boost_info(b) for b in plan.intents.boosts],
            total_candidates=len(hits),
            from_=spec.from_,
            size=spec.size,
            timings=Timings(
                total_ms=round((time.perf_counter() - started) * 1000, 2),
                encode_ms=plan.encode_ms,
                encode_wall_ms=plan.encode_wall_ms,
                opensearch_ms=float(response.get("took", 0)),
                opensearch_round_trip_ms=plan.opensearch_round_trip_ms,
                postprocess_ms=postprocess_ms,
                components_ms=_profile_ms(response, plan.components) if spec.profile else None,
            ),
        )
        return SearchResponse(results=results, metadata=metadata)

    def _execute(self, plan: SearchPlan) -> tuple[dict[str, Any], bool]:
        """Send the planned request; if a rerank fails or overruns, send it again without rerank."""
        search = self.settings.search
        if plan.rerank_model_id is None:
            return self._send(plan, search.opensearch_timeout_ms / 1000), False
        try:
            return self._send(plan, search.rerank_timeout_ms / 1000), True
        except ConnectionTimeout:
            plan.reranker_error = "timeout"
        except TransportError as exc:
            plan.reranker_error = "unavailable"
            log.warning("rerank failed", extra={"error": str(exc)[:300]})
            with self._lock:  # the model may have been re-registered under a new id: look again next time
                self._model_ids = (0.0, {})
        log.warning("rerank dropped", extra={"reason": plan.reranker_error})
        plan.request = self._request(plan, None)
        return self._send(plan, search.opensearch_timeout_ms / 1000), False

    def _route(self, plan: SearchPlan, chunks: list[ChunkResult]) -> list[ChunkResult]:
        """Clinical routing after fusion (control_plane/search/routing.py): the routed sections of the
        records the query is about move up; sections the fused list missed are fetched. A failed fetch
        degrades to routing within the fused list (``section_fetch_failed`` in component_errors)."""
        params = self.settings.search.section_routing
        fetched: list[ChunkResult] = []
        if params.fetch_sections:
            try:
                fetched = self._sections(plan, topical_records(chunks, params))
            except (ConnectionTimeout, TransportError) as exc:
                log.warning("routed sections not fetched", extra={"error": str(exc)[:300]})
                plan.component_errors.append("section_fetch_failed")
        return route_chunks(chunks, plan.intents.boosts, params, fetched)

    def _sections(self, plan: SearchPlan, doc_ids: Sequence[str]) -> list[ChunkResult]:
        """The routed sections (boost filters) of these documents, under the request's filters."""
        started = time.perf_counter()
        try:
            return fetch_sections(
                self.client,
                plan.index,
                plan.tenant_id,
                plan.intents.spec.filters,
                doc_ids,
                plan.intents.boosts,
                self.settings.search.opensearch_timeout_ms / 1000,
            )
        finally:
            plan.opensearch_round_trip_ms += round((time.perf_counter() - started) * 1000, 2)

    def _send(self, plan: SearchPlan, timeout_s: float) -> dict[str, Any]:
        request = plan.request
        params = {**request.params, "request_timeout": timeout_s}
        started = time.perf_counter()
        try:
            answer: dict[str, Any] = self.client.search(index=request.index, body=request.body, params=params)
        finally:
            plan.opensearch_round_trip_ms += round((time.perf_counter() - started) * 1000, 2)
        return answer


def _timed(call: Any) -> Any:
    def run() -> tuple[Any, float]:
        started = time.perf_counter()
        return call(), time.perf_counter() - started

    return run


def boost_info(boost: Boost) -> BoostInfo:
    return BoostInfo(
        intent=boost.intent,
        field=boost.field,
        values=list(boost.values),
        factor=round(boost.factor, 4),
        reason=boost.reason,
    )


def _rrf_ties_by_bm25(chunks: list[ChunkResult]) -> list[ChunkResult]:
    """The spec's RRF tie rule: equal fused scores ordered by BM25 rank (OpenSearch uses doc order)."""
    by_id = {chunk.chunk_id: chunk for chunk in chunks}
    bm25_ranking = sorted(
        (c for c in chunks if c.component_scores.bm25 is not None),
        key=lambda c: -(c.component_scores.bm25 or 0.0),
    )
    order = order_by_score_then_rank(
        {c.chunk_id: c.score for c in chunks}, [c.chunk_id for c in bm25_ranking], tolerance=1e-7
    )
    return [by_id[chunk_id] for chunk_id in order]


def _fusion_info(spec: SearchSpec, weights: Mapping[str, float]) -> FusionInfo:
    if spec.fusion_method == "rrf":
        return FusionInfo(method="rrf", rank_constant=spec.rank_constant)
    return FusionInfo(method="weighted", weights={name: round(w, 6) for name, w in weights.items()})


def _profile_ms(response: Mapping[str, Any], components: Sequence[str]) -> dict[str, float] | None:
    """Per sub-query time from a profiled hybrid query (children in sub-query order)."""
    try:
        query = response["profile"]["shards"][0]["searches"][0]["query"][0]
    except (KeyError, IndexError, TypeError):
        return None
    children = query.get("children") or []
    if len(children) != len(components):
        return None
    return {
        name: round(child.get("time_in_nanos", 0) / 1e6, 3)
        for name, child in zip(components, children, strict=True)
    }
