"""One search, end to end: intents and boosts, query type and weights, query encoding with per-component
deadlines, one OpenSearch request (fusion inside OpenSearch), the rerank after it (one call to the
inference service, when asked), degradation, and the answer.

Degradation: a component whose encoding fails or misses its deadline is dropped before the request
(`component_errors`: ``splade_timeout``...). A rerank never fails a search and is never retried: the fused
hits go to the inference service's rerank endpoint once, with the budget ``search.rerank_timeout_ms``;
a model that misses it, is overloaded, absent or (``search.rerank_requires_gpu``) on CPU leaves the
fused order (`reranked=false`, `reranker_error`). All components failing raises
``SearchUnavailableError`` (HTTP 503 with the reasons).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionTimeout, TransportError

from control_plane.clinical.facet_boost import facet_boost_factor
from control_plane.clinical.query_types import classify_query
from control_plane.config.settings import Settings
from control_plane.errors import BadRequestError, BiohybridError, UnavailableError
from control_plane.models.sparse import token_id_vocabulary
from control_plane.query.components import COMPONENTS, EncoderRole, QueryEncodings, token_id_weights
from control_plane.query.named_records import absent_records
from control_plane.resilience.retry import retry_search
from control_plane.resources.versions import (
    SUPPORTED_VERSIONS,
    WEIGHTED_RRF_SINCE,
    Version,
)
from control_plane.search.abandoned import UNWATCHED, AbandonedSearches, WatchedCaller
from control_plane.search.answer_metadata import boost_info, fusion_info, intent_info, profile_ms
from control_plane.search.degradation import reranked_hits, usable_components
from control_plane.search.encoders import InferenceClient, run_with_deadline
from control_plane.search.index_choice import search_index, searches_tenant_pattern
from control_plane.search.intent_plan import IntentPlan, plan_intents
from control_plane.search.model_ids import DeployedModelIds, ModelIds
from control_plane.search.ordering import rrf_ties_by_bm25
from control_plane.search.postprocess import shape_results, source_side_fields
from control_plane.search.query_cache.caches import Encoding, QueryCaches
from control_plane.search.query_cache.lookup import ResponseLookup, answer_models, lookup_response
from control_plane.search.query_cache.responses import cacheable, served_from_cache
from control_plane.search.request import OpenSearchRequest, build_request
from control_plane.search.results import (
    CacheInfo,
    CacheStatus,
    ChunkResult,
    SearchMetadata,
    SearchResponse,
    ShardCounts,
    Timings,
    chunk_result,
)
from control_plane.search.section_routing import route_chunks, topical_records
from control_plane.search.sections import fetch_sections
from control_plane.search.spec import SearchSpec

log = logging.getLogger(__name__)


class UnhonouredSettingError(BiohybridError, RuntimeError):
    """The service's settings ask the node for what its version cannot do (an operator's fix: 500)."""


class SearchUnavailableError(UnavailableError, RuntimeError):
    """No component could serve the query; ``reasons`` lists why, one per component."""

    def __init__(self, reasons: Sequence[str]) -> None:
        super().__init__("no retrieval component is available: " + "; ".join(reasons))
        self.reasons = list(reasons)

    @property
    def details(self) -> list[str]:
        return self.reasons


@dataclass(frozen=True)
class SearchPlan:
    """Everything decided before OpenSearch is called, built once; `/v1/rewrite` returns ``request``."""

    spec: SearchSpec
    tenant_id: str
    index: str
    encodings: QueryEncodings
    request: OpenSearchRequest
    components: tuple[str, ...]
    weights: Mapping[str, float] | None  # min-max's, or weighted RRF's; None: classic RRF
    query_type: str
    intents: IntentPlan
    component_errors: tuple[str, ...] = ()
    reranker_error: str | None = None
    rerank_model: str | None = None  # the served model that reranks the fused hits (None: no rerank)
    encode_ms: Mapping[str, float] = field(default_factory=dict)
    encode_wall_ms: float = 0.0
    encoding_cache: Mapping[str, CacheStatus] = field(default_factory=dict)


@dataclass(frozen=True)
class Execution:
    """What OpenSearch answered for a plan: the response (its hits reranked when ``reranked``; else
    ``reranker_error`` says why a rerank asked for was not applied) and the time spent waiting for
    OpenSearch and the reranker."""

    response: dict[str, Any]
    reranked: bool
    reranker_error: str | None
    round_trip_ms: float


# How much longer than the rerank budget /v1/search waits for the service's answer (which, past the
# budget, is the fused order): the HTTP round trip and the answer's serialisation.
RERANK_MARGIN_S = 0.04


class SearchService:
    """Its collaborators are injected: the cluster ``client``, the ``inference`` service client that encodes
    queries, and where ``model_ids`` come from (default: ml-commons, cached briefly)."""

    def __init__(
        self,
        client: OpenSearch,
        settings: Settings,
        inference: InferenceClient | None = None,
        model_ids: ModelIds | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.inference = inference or InferenceClient.from_settings(settings)
        self.model_ids = model_ids or DeployedModelIds(client, settings)
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="encode")
        self._version: Version | None = None
        self.abandoned = AbandonedSearches(client)
        models_timeout_s = settings.search.component_timeout_ms / 1000
        self.caches = QueryCaches(settings.search.cache, lambda: self.inference.models(models_timeout_s))

    # -- planning -----------------------------------------------------------------------------------

    def resolve(self, spec: SearchSpec) -> SearchSpec:
        """Fill what the request left to configuration (the candidate depth), validated again."""
        if spec.candidate_depth is not None:
            return spec
        data = spec.model_dump(by_alias=True)
        data["candidate_depth"] = self.settings.search.candidate_depth
        return SearchSpec.model_validate(data)

    def plan(self, spec: SearchSpec, tenant_id: str, index: str | None = None) -> SearchPlan:
        """Everything before the OpenSearch call. ``index``: see ``search_index`` (checked first, so a
        refused index costs no encoding)."""
        resolved_index = search_index(self.settings, tenant_id, index)
        spec = self.resolve(spec)
        intents = plan_intents(spec, self.settings)
        query_type = str(classify_query(spec.query, [i.name for i in intents.intents]))
        encode_started = time.perf_counter()
        encodings, components, errors, encode_ms, encoding_cache = self._encode(
            spec, intents.semantic_text, tenant_id
        )
        encode_wall_ms = round((time.perf_counter() - encode_started) * 1000, 2)
        if not components:
            raise SearchUnavailableError(errors)
        requested = {str(name): w for name, w in spec.weights.items()} if spec.weights is not None else None
        weights = self._weights(spec, requested, query_type, components)
        request = self._request(intents, tenant_id, resolved_index, components, weights, encodings)
        return SearchPlan(
            spec=spec,
            tenant_id=tenant_id,
            index=resolved_index,
            encodings=encodings,
            request=request,
            components=tuple(components),
            weights=weights,
            query_type=query_type,
            intents=intents,
            component_errors=tuple(errors),
            rerank_model=self.settings.models.rerank if spec.rerank else None,
            encode_ms=encode_ms,
            encode_wall_ms=encode_wall_ms,
            encoding_cache=encoding_cache,
        )

    def _weights(
        self, spec: SearchSpec, requested: Mapping[str, float] | None, query_type: str, components: list[str]
    ) -> dict[str, float] | None:
        """Min-max's weights (the request's or the query type's), or weighted RRF's (the request's or
        ``fusion.rrf.weights``; None for classic RRF), which the node must be able to apply."""
        if spec.fusion_method != "rrf":
            return self.settings.fusion.weighted_weights(requested, query_type, components)
        weights = self.settings.fusion.rrf_weights(requested, components)
        version = self._node_version()
        if weights is not None and version < WEIGHTED_RRF_SINCE:
            if requested is not None:
                raise BadRequestError(
                    f"weighted RRF needs OpenSearch {WEIGHTED_RRF_SINCE}+ and this node runs {version}: "
                    "leave weights out for classic RRF, or send fusion_method 'weighted'"
                )
            raise UnhonouredSettingError(
                f"fusion.rrf.weights is set but this node runs OpenSearch {version}, whose RRF takes no "
                f"weights (needs {WEIGHTED_RRF_SINCE}+): set fusion.rrf.weights to null"
            )
        return weights

    def _request(
        self,
        intents: IntentPlan,
        tenant_id: str,
        index: str,
        components: Sequence[str],
        weights: Mapping[str, float] | None,
        encodings: QueryEncodings,
    ) -> OpenSearchRequest:
        """The fused request; a rerank asked for fetches at least its depth (``fetch_window``) and runs
        after it (``_rerank``), not in the request's pipeline."""
        return build_request(
            intents.spec,
            self.settings,
            tenant_id=tenant_id,
            index=index,
            components=list(components),
            weights=dict(weights) if weights is not None else None,
            encodings=encodings,
            routing_depth=self.settings.search.section_routing.depth if intents.boosts else 0,
            rerank_top_n=intents.spec.rerank_top_n,
            profile=intents.spec.profile,
            ignore_unavailable=searches_tenant_pattern(self.settings, tenant_id, index),
            bm25_fields=intents.bm25_fields,
            semantic_text=intents.semantic_text,
            node_version=self._node_version(),
        )

    def _node_version(self) -> Version:
        """The node's OpenSearch version, read once (the request's form depends on it: versions.py).
        A node that cannot be read yet gets the newest supported version's form, and is read again next
        time (the search itself then reports the node)."""
        if self._version is None:
            try:
                self._version = Version.parse(self.client.info()["version"]["number"])
            except TransportError as exc:  # connection errors included
                log.debug("node version not read", extra={"error": str(exc)[:200]})
                return SUPPORTED_VERSIONS[-1]
        return self._version

    def _encode(
        self, spec: SearchSpec, text: str, tenant_id: str
    ) -> tuple[QueryEncodings, list[str], list[str], dict[str, float], dict[str, CacheStatus]]:
        """Encode ``text`` (the query, or its clinical topic) for each requested component a model of the
        inference service encodes for (its record's ``encoder``: dense, sparse), each from the encoding
        cache when it holds it."""
        timeout_s = self.settings.search.component_timeout_ms / 1000
        roles: dict[str, EncoderRole | None] = {name: COMPONENTS[name].encoder for name in spec.components}
        doc_only = "sparse" in roles.values() and self.settings.models.sparse_query_mode == "doc-only"
        doc_only_id = self.model_ids.current().get("sparse_query") if doc_only else None
        # a SEISMIC chunk index cannot be a k-NN index (one plugin codec per index): no dense to search
        no_knn = self.settings.index.sparse.method == "seismic"
        skipped = {"dense": no_knn, "sparse": doc_only}  # sparse doc-only: OpenSearch encodes the text
        encoders = {
            n: self.inference.encoder(r) for n, r in roles.items() if r is not None and not skipped[r]
        }
        lookups = {
            name: self.caches.encoding(tenant_id, name, model, text) for name, (model, _) in encoders.items()
        }
        calls: dict[str, Callable[[], Any]] = {
            name: _timed(partial(encode, text, timeout_s))
            for name, (_, encode) in encoders.items()
            if lookups[name].value is None
        }
        results, failures = run_with_deadline(self._pool, calls, timeout_s)
        encoded: dict[str, Encoding] = {name: value for name, (value, _) in results.items()}
        for name, value in encoded.items():
            self.caches.keep_encoding(lookups[name], value)
        cached = {name: lookup.value for name, lookup in lookups.items() if lookup.value is not None}
        vectors = {**cached, **encoded}
        errors = [failure.code for failure in failures]
        for failure in failures:
            log.warning("component dropped", extra={"component": failure.component, "reason": failure.detail})
        for name, role in roles.items():
            if role == "sparse" and doc_only and not doc_only_id:
                errors.append(f"{name}_unavailable")
            if role == "dense" and no_knn:
                errors.append(f"{name}_not_indexed")
        usable = usable_components(spec.components, vectors, doc_only_sparse_id=doc_only_id)
        by_role = {roles[name]: value for name, value in vectors.items()}
        dense, sparse = by_role.get("dense"), by_role.get("sparse")
        sparse_tokens = sparse if isinstance(sparse, dict) else None
        if sparse_tokens is not None and self.settings.index.sparse.method == "seismic":
            # a SEISMIC field is keyed by token ids (doc-only text: neural-search asks the model for ids)
            sparse_tokens = token_id_weights(sparse_tokens, token_id_vocabulary(self.settings.models.sparse))
        encodings = QueryEncodings(
            dense_vector=dense if isinstance(dense, list) else None,
            sparse_tokens=sparse_tokens,
            sparse_model_id=doc_only_id,
        )
        encode_ms = {name: round(value[1] * 1000, 2) for name, value in results.items()}
        return encodings, usable, errors, encode_ms, {name: lookup.status for name, lookup in lookups.items()}

    # -- execution ----------------------------------------------------------------------------------

    def search(
        self,
        spec: SearchSpec,
        tenant_id: str,
        index: str | None = None,
        caller_gone: Callable[[], bool] | None = None,
    ) -> SearchResponse:
        """``caller_gone``: whether the caller has closed its connection (the server's check); asked
        before each OpenSearch call, so a search nobody will read stops there (CallerGoneError), and
        while one runs, so OpenSearch cancels it (search/abandoned.py)."""
        started = time.perf_counter()
        cache = self._cached_response(spec, tenant_id, index)
        if cache.answer is not None:
            return served_from_cache(
                cache.answer, cache.info, round((time.perf_counter() - started) * 1000, 2)
            )
        plan = self.plan(spec, tenant_id, index)
        spec = plan.spec
        with self.abandoned.watching(caller_gone) as caller:
            return self._searched(spec, plan, cache, caller, started)

    def _searched(
        self, spec: SearchSpec, plan: SearchPlan, cache: ResponseLookup, caller: WatchedCaller, started: float
    ) -> SearchResponse:
        caller.stop_if_left("before the search")
        execution = self._execute(plan, caller)
        response, reranked = execution.response, execution.reranked
        shaping = time.perf_counter()
        hits = response["hits"]["hits"]
        facets = spec.granularity == "facet"
        chunks = [chunk_result(hit, reranked, list(plan.components), facets=facets) for hit in hits]
        if spec.fusion_method == "rrf" and not reranked:
            chunks = rrf_ties_by_bm25(chunks)
        route_errors: list[str] = []
        route_ms = 0.0
        sources = [hit.get("_source", {}) for hit in hits]
        absent = absent_records(spec.query, (source.get("identifiers") for source in sources))
        if plan.intents.boosts and not absent:
            caller.stop_if_left("before the section fetch")
            chunks, route_errors, route_ms = self._route_sections(plan, chunks, sources, caller)
        embeddings, token_counts = source_side_fields(hits) if spec.merge_neighbours else ({}, {})
        results = shape_results(chunks, spec, embeddings, token_counts)
        postprocess_ms = round((time.perf_counter() - shaping) * 1000, 2)
        shards = ShardCounts.of(response)
        if shards.partial:
            log.warning("partial search answer", extra={"index": plan.index, **shards.model_dump()})
        metadata = SearchMetadata(
            query=spec.query,
            query_type=plan.query_type,
            granularity=spec.granularity,
            fusion=fusion_info(spec, plan.weights),
            components_used=list(plan.components),
            component_errors=[*plan.component_errors, *route_errors],
            absent_records=list(absent),
            reranked=reranked,
            reranker_model=self.settings.models.rerank if reranked else None,
            reranker_error=execution.reranker_error,
            intents=[intent_info(i) for i in plan.intents.intents],
            boosts=[boost_info(b) for b in plan.intents.boosts],
            facet_boost=facet_boost_factor(plan.intents.bm25_fields),
            total_candidates=len(hits),
            shards=shards,
            partial=shards.partial,
            from_=spec.from_,
            size=spec.size,
            timings=Timings(
                total_ms=round((time.perf_counter() - started) * 1000, 2),
                encode_ms=dict(plan.encode_ms),
                encode_wall_ms=plan.encode_wall_ms,
                opensearch_ms=float(response.get("took", 0)),
                opensearch_round_trip_ms=round(
                    execution.round_trip_ms + route_ms + (cache.info.state_ms or 0), 2
                ),
                postprocess_ms=postprocess_ms,
                components_ms=profile_ms(response, plan.components) if spec.profile else None,
            ),
            cache=cache.info.model_copy(update={"encodings": dict(plan.encoding_cache)}),
        )
        answer = SearchResponse(results=results, metadata=metadata)
        if cache.key is not None and cacheable(answer, spec):
            self.caches.keep_response(cache.key, answer)
        return answer

    def _cached_response(self, spec: SearchSpec, tenant_id: str, index: str | None) -> ResponseLookup:
        """The response cache's lookup (``search.cache.response``; ``info.response`` is off when off)."""
        if self.caches.responses is None:
            return ResponseLookup(CacheInfo())
        resolved = self.resolve(spec)
        models = answer_models(
            resolved, self.settings, self.inference.dense_model, self.inference.sparse_model
        )
        timeout_s = self.settings.search.opensearch_timeout_ms / 1000
        resolved_index = search_index(self.settings, tenant_id, index)
        return lookup_response(
            self.caches, self.client, self.model_ids, resolved, tenant_id, resolved_index, models, timeout_s
        )

    def _execute(self, plan: SearchPlan, caller: WatchedCaller) -> Execution:
        """Send the planned request, then rerank its hits when asked (``_rerank``: one call, within
        its budget; the fused order when it cannot)."""
        search = self.settings.search
        answer, spent = self._send(plan.request, search.opensearch_timeout_ms / 1000, caller)
        if plan.rerank_model is None:
            return Execution(answer, False, plan.reranker_error, spent)
        caller.stop_if_left("before the rerank")
        started = time.perf_counter()
        hits = answer["hits"]["hits"]
        ranking, reason = self._rerank(plan, plan.rerank_model, hits)
        spent += (time.perf_counter() - started) * 1000
        if ranking is None:
            return Execution(answer, False, reason, spent)
        reranked = {**answer, "hits": {**answer["hits"], "hits": reranked_hits(hits, ranking)}}
        return Execution(reranked, True, None, spent)

    def _rerank(
        self, plan: SearchPlan, model: str, hits: Sequence[Mapping[str, Any]]
    ) -> tuple[list[dict[str, Any]] | None, str | None]:
        """The service's order of the fused ``hits`` (scored by the model over their text, blended with
        the fused order: models.rerank_model_weight), or None and why not. One call with the budget
        ``search.rerank_timeout_ms``: the service answers the fused order itself when the model misses
        it; the client waits ``RERANK_MARGIN_S`` more for that answer, never retries."""
        if not hits:
            return [], None
        search, models = self.settings.search, self.settings.models
        body = {
            "query": plan.spec.query,
            "documents": [_rerank_text(hit) for hit in hits],
            "depth": plan.spec.rerank_top_n or models.rerank_top_n,
            "model_weight": models.rerank_model_weight,
            "budget_ms": search.rerank_timeout_ms,
            "requires_gpu": self.settings.rerank_requires_gpu,
        }
        answer = self.inference.rerank(model, body, search.rerank_timeout_ms / 1000 + RERANK_MARGIN_S)
        if answer.reason is not None:
            log.warning("rerank not applied", extra={"reason": answer.reason, "detail": answer.detail[:300]})
        return answer.ranking, answer.reason

    def _route_sections(
        self,
        plan: SearchPlan,
        chunks: list[ChunkResult],
        sources: Sequence[Mapping[str, Any]],
        caller: WatchedCaller,
    ) -> tuple[list[ChunkResult], list[str], float]:
        """Section routing after fusion (control_plane/clinical/section_routing.py): the routed sections of
        the records the query is about move up; sections the fused list missed are fetched.
        ``sources``: the hits' ``_source``, whose titles and topics say what each record declares it
        is about (a question about many records judges them by it). A failed fetch degrades to routing
        within the fused list (``section_fetch_failed``). Returns the routed chunks, the errors and
        the milliseconds spent fetching."""
        params = plan.intents.clinical.section_routing(
            self.settings.search.section_routing, plan.intents.spec.fusion_method
        )
        fetched: list[ChunkResult] = []
        errors: list[str] = []
        declarations = plan.intents.clinical.declarations(sources)
        topical = topical_records(chunks, params, plan.intents.boosts, declarations)
        started = time.perf_counter()
        if params.fetch_sections:
            try:
                fetched = fetch_sections(
                    self.client,
                    plan.index,
                    plan.tenant_id,
                    plan.intents.spec.filters,
                    list(topical),
                    plan.intents.boosts,
                    self.settings.search.opensearch_timeout_ms / 1000,
                    ignore_unavailable=searches_tenant_pattern(self.settings, plan.tenant_id, plan.index),
                    facets_only=plan.intents.spec.granularity == "facet",
                    caller=caller,
                )
            except (ConnectionTimeout, TransportError) as exc:
                log.warning("routed sections not fetched", extra={"error": str(exc)[:300]})
                errors.append("section_fetch_failed")
        spent = (time.perf_counter() - started) * 1000 if params.fetch_sections else 0.0
        return route_chunks(chunks, plan.intents.boosts, params, fetched, topical), errors, spent

    def _send(
        self, request: OpenSearchRequest, timeout_s: float, caller: WatchedCaller = UNWATCHED
    ) -> tuple[dict[str, Any], float]:
        """OpenSearch's answer and the milliseconds it took (client side, retries included). A transient
        answer (a node shutting down mid-search, a cluster-manager election) is sent again with the
        direct clients' bounded retry and classifier (``resilience/retry.py``) while the wait still
        fits in ``timeout_s``, so a rolling restart costs the caller a wait, not a 503; a timeout is
        never retried (its budget is spent), nor is a search cancelled because its caller left."""
        params = {**request.params, "request_timeout": timeout_s}
        started = time.perf_counter()
        answer: dict[str, Any] = retry_search(
            partial(caller.search, self.client, index=request.index, body=request.body, params=params),
            what="api search",
            within_s=timeout_s,
        )
        return answer, (time.perf_counter() - started) * 1000


def _rerank_text(hit: Mapping[str, Any]) -> str:
    """What the reranker reads of a hit: its text (a chunk without text is scored by its id, so the
    lists stay aligned: the service refuses an empty document)."""
    source = hit.get("_source") or {}
    return str(source.get("text") or "").strip() or str(source.get("chunk_id") or hit.get("_id") or "-")


def _timed(call: Any) -> Any:
    def run() -> tuple[Any, float]:
        started = time.perf_counter()
        return call(), time.perf_counter() - started

    return run
