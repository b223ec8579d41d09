"""Build the hybrid OpenSearch request a search sends: named sub-queries with tenant and user filters
on all, and an inline search pipeline rendered from search_pipelines/. (Clinical boosts are not in it:
they are routed after fusion, control_plane/clinical/section_routing.py.)

Pure: everything that needs I/O (query vectors, model ids) comes in as arguments, so `/v1/rewrite`
can return exactly what `/v1/search` sends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from control_plane.clinical.facet_boost import facets_only_filter
from control_plane.config.settings import Settings
from control_plane.locations import RESOURCES_DIR
from control_plane.query.components import (
    BM25_FIELD_BOOSTS,
    VECTOR_FIELDS,
    ClauseInput,
    QueryEncodings,
    SparseAnn,
    component_clauses,
    product_hybrid,
)
from control_plane.resources.catalog import (
    render_params,
    rrf_combination_parameters,
    with_rerank,
    with_score_explanation,
    with_sparse_two_phase,
)
from control_plane.resources.render import render
from control_plane.resources.versions import HYBRID_FILTER_SINCE, Version, pipeline_for_version
from control_plane.search.odata.clauses import filter_clause
from control_plane.search.odata.syntax import parse_filter
from control_plane.search.spec import Filters, SearchSpec

PIPELINE_FILES = {"weighted": "hybrid-minmax.json", "rrf": "hybrid-rrf.json"}
EXCLUDED_SOURCE = [*VECTOR_FIELDS, "table_html", "content_hash"]


@dataclass(frozen=True)
class OpenSearchRequest:
    index: str
    body: dict[str, Any]
    params: dict[str, str] = field(default_factory=dict)

    @property
    def pipeline(self) -> dict[str, Any]:
        return dict(self.body.get("search_pipeline", {}))

    def to_dict(self) -> dict[str, Any]:
        query = "&".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return {
            "method": "POST",
            "path": f"/{self.index}/_search" + (f"?{query}" if query else ""),
            "index": self.index,
            "params": dict(self.params),
            "pipeline": self.pipeline,
            "body": self.body,
        }


def _depth(spec: SearchSpec) -> int:
    if spec.candidate_depth is None:
        raise ValueError("candidate_depth must be resolved from configuration first (SearchService.resolve)")
    return spec.candidate_depth


def _excluded_source(spec: SearchSpec) -> list[str]:
    """Vectors stay out of answers, except embeddings when neighbour merging compares them."""
    if spec.merge_neighbours:
        return [name for name in EXCLUDED_SOURCE if name != "embedding"]
    return list(EXCLUDED_SOURCE)


def fetch_window(spec: SearchSpec, rerank_top_n: int, routing_depth: int = 0) -> int:
    """How many fused hits to ask for. Always from the top (from=0), so every page is a slice of the
    same list: pages concatenate to the unpaginated ranking without duplicates. A reranked search asks
    for at least the rerank depth (the service reorders the top ``rerank_top_n`` and keeps the rest
    below them in fused order, so a page past the depth is still there). A routed search (clinical
    boosts) asks for at least ``routing_depth`` so routing sees the records the query is about."""
    window = _depth(spec) * len(spec.components) if spec.granularity == "document" else spec.from_ + spec.size
    window = max(window, routing_depth)
    return max(window, rerank_top_n) if spec.rerank else window


def sparse_ann(settings: Settings, depth: int) -> SparseAnn | None:
    """The SEISMIC query parameters when the SPLADE field is SEISMIC (k: the candidate depth), else None."""
    sparse = settings.index.sparse
    if sparse.method != "seismic":
        return None
    return SparseAnn(top_n=sparse.top_n, heap_factor=sparse.heap_factor, k=depth)


def filter_clauses(tenant_id: str, filters: Filters, facets_only: bool = False) -> list[dict[str, Any]]:
    """Tenant first (never optional), then the user's filters; lists match any of their values.
    ``facets_only`` (facet granularity): only chunks that carry structured facts."""
    clauses: list[dict[str, Any]] = [{"term": {"tenant_id": tenant_id}}]
    for field_name, values in (
        ("source", filters.source),
        ("section", filters.section),
        ("intent_hint", filters.intent),
        ("doc_type", filters.doc_type),
    ):
        if values:
            clauses.append({"terms": {field_name: list(values)}})
    if filters.publication_date is not None:
        bounds = {
            op: value.isoformat()
            for op, value in (("gte", filters.publication_date.gte), ("lte", filters.publication_date.lte))
            if value is not None
        }
        if bounds:
            clauses.append({"range": {"publication_date": bounds}})
    if filters.expression is not None:
        clauses.append(filter_clause(parse_filter(filters.expression)))
    if facets_only:
        clauses.append(facets_only_filter())
    return clauses


@lru_cache(maxsize=8)
def _pipeline_file(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _pipeline_template(path: Path) -> Any:
    """The pipeline file, read once per process (a fresh copy each call: rendering must not share)."""
    return json.loads(_pipeline_file(path))


def inline_pipeline(
    settings: Settings,
    fusion_method: str,
    weights: Mapping[str, float] | None,
    components: Sequence[str],
    rank_constant: int,
    rerank_model_id: str | None = None,
    explain: bool = False,
) -> dict[str, Any]:
    """The repository's pipeline file for the fusion method, rendered with this request's weights
    (restricted to the components in use, in sub-query order: min-max's, or weighted RRF's; None for
    classic RRF) and rank constant."""
    if weights is None and fusion_method != "rrf":
        raise ValueError(f"fusion {fusion_method!r} needs weights")
    in_order = [round(weights[name], 6) for name in components] if weights is not None else None
    params = render_params(settings)
    if in_order is not None:
        params["fusion.weights_in_order"] = in_order
    params["fusion.rrf.combination_parameters"] = rrf_combination_parameters(
        in_order if fusion_method == "rrf" else None
    )
    params["fusion.rrf.rank_constant"] = rank_constant
    path = RESOURCES_DIR / "search_pipelines" / PIPELINE_FILES[fusion_method]
    pipeline: dict[str, Any] = render(_pipeline_template(path), params, str(path))
    pipeline = with_sparse_two_phase(pipeline, settings.search.sparse_two_phase)
    if explain:
        pipeline = with_score_explanation(pipeline)
    if rerank_model_id is not None:
        pipeline = with_rerank(pipeline, rerank_model_id)
    pipeline.pop("description", None)
    return pipeline


def build_request(
    spec: SearchSpec,
    settings: Settings,
    *,
    tenant_id: str,
    index: str,
    components: Sequence[str],
    weights: Mapping[str, float] | None,
    encodings: QueryEncodings,
    routing_depth: int = 0,
    rerank_model_id: str | None = None,
    rerank_top_n: int | None = None,
    profile: bool = False,
    ignore_unavailable: bool = False,
    bm25_fields: Mapping[str, float] = BM25_FIELD_BOOSTS,
    semantic_text: str | None = None,
    node_version: Version | None = None,
) -> OpenSearchRequest:
    """The request for ``spec`` over ``components`` (the spec's, minus any dropped by degradation).
    ``node_version``: the node's version (None: the current form), which decides two things: a hybrid
    query takes a ``filter`` only from 3.0 (before it, each sub-query carries the filters itself:
    ``product_hybrid``), and the pipeline is written in the form that version reads
    (resources/versions.py: pipeline_for_version).
    ``ignore_unavailable``: a missing index named in ``index`` is skipped, not an error. ``bm25_fields``:
    the BM25 field weights (facet_json raised for a clinical intent: IntentPlan.bm25_fields).
    ``semantic_text``: what a doc-only sparse clause sends as text (the clinical topic; default the
    query), as the vectors in ``encodings`` were encoded from it."""
    if not components:
        raise ValueError("no component left to search with")
    depth = _depth(spec)
    facets_only = spec.granularity == "facet"
    filters = {"bool": {"filter": filter_clauses(tenant_id, spec.filters, facets_only=facets_only)}}
    ann = sparse_ann(settings, depth)
    made_from = ClauseInput(spec.query, depth, semantic_text, bm25_fields, encodings, ann)
    clauses = component_clauses(components, made_from, by="encoding")
    hybrid = product_hybrid(
        spec.query,
        clauses,
        depth,
        filters,
        ef_search=settings.index.knn.ef_search,
        sparse_ann=ann is not None,
        filter_on_hybrid=node_version is None or node_version >= HYBRID_FILTER_SINCE,
    )
    top_n = rerank_top_n or settings.models.rerank_top_n
    body: dict[str, Any] = {
        "from": 0,
        "size": fetch_window(spec, top_n, routing_depth),
        "_source": {"excludes": _excluded_source(spec)},
        "query": {"hybrid": hybrid},
        "search_pipeline": inline_pipeline(
            settings,
            spec.fusion_method,
            weights,
            components,
            spec.rank_constant,
            rerank_model_id,
            spec.explain,
        ),
    }
    if node_version is not None:
        body["search_pipeline"] = pipeline_for_version(node_version, body["search_pipeline"])
    if spec.explain:
        body["explain"] = True
    if profile:
        body["profile"] = True
    if rerank_model_id is not None:
        body["ext"] = {"rerank": {"query_context": {"query_text": spec.query}}}
    params = {"include_named_queries_score": "true"}
    if ignore_unavailable:
        params["ignore_unavailable"] = "true"
    return OpenSearchRequest(index=index, body=body, params=params)
