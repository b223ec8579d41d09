"""A plain-text query through a named search pipeline, as a client sends it:
``POST <index>/_search?search_pipeline=<name>``. `biohybrid query` and the relevance console both send it
from here, so the console shows what a client of that pipeline gets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from opensearchpy import OpenSearch

from control_plane.query.components import (
    COMPONENT_ORDER,
    DENSE_FIELD,
    named_clause,
    plain_search_body,
    restrict_hybrid,
    text_search_body,
)
from control_plane.resilience.retry import retry_search
from control_plane.resources.catalog import RERANK_SUFFIX

CLINICAL_PREFIX: Final = "clinical-"


@dataclass(frozen=True)
class PipelineQuery:
    """``filters``: clauses every hit must match (the console's tenant); ``named``: each hit reports its
    component scores (the hybrid pipelines' sub-queries are named here; the clinical rewrite names its
    own)."""

    text: str
    pipeline: str
    size: int
    filters: tuple[Mapping[str, Any], ...] = ()
    named: bool = False

    @property
    def clinical(self) -> bool:
        return self.pipeline.startswith(CLINICAL_PREFIX)


def pipeline_body(query: PipelineQuery, rerank_top_n: int) -> dict[str, Any]:
    """Through a clinical pipeline the body is only the question (in a bool with the filters): the
    pipeline builds the hybrid query. Through the hybrid pipelines it is the explicit hybrid query of the
    text; a ``-rerank`` form fetches at least the rerank depth (the rest keep their fused order)."""
    if query.clinical:
        body = plain_search_body(query.text, query.size)
        if query.filters:
            body["query"] = {"bool": {"must": [body["query"]], "filter": [dict(f) for f in query.filters]}}
        return body
    body = text_search_body(query.text, query.size)
    hybrid = body["query"]["hybrid"]
    if query.filters:
        restrict_hybrid(hybrid, hybrid["queries"][-1]["neural"][DENSE_FIELD], query.filters)
    if query.named:
        pairs = zip(COMPONENT_ORDER, hybrid["queries"], strict=True)
        hybrid["queries"] = [named_clause(name, clause) for name, clause in pairs]
    if query.pipeline.endswith(RERANK_SUFFIX):
        body["ext"] = {"rerank": {"query_context": {"query_text": query.text}}}
        body["size"] = max(query.size, rerank_top_n)
    return body


def pipeline_search(
    client: OpenSearch,
    index: str,
    query: PipelineQuery,
    rerank_top_n: int,
    ignore_unavailable: bool = False,
) -> dict[str, Any]:
    """OpenSearch's answer, cut to ``query.size`` hits. A node leaving or a shard recovering answers
    for a moment: asked again (resilience/transient.py)."""
    params = {"search_pipeline": query.pipeline}
    if query.named:
        params["include_named_queries_score"] = "true"
    if ignore_unavailable:
        params["ignore_unavailable"] = "true"
    body = pipeline_body(query, rerank_top_n)
    response: dict[str, Any] = retry_search(
        lambda: client.search(index=index, params=params, body=body), what="query"
    )
    response["hits"]["hits"] = response["hits"]["hits"][: query.size]
    return response


def reranked(pipeline: str) -> bool:
    """Whether a hit's ``_score`` is the cross-encoder's: a hybrid ``-rerank`` form (a clinical one
    routes the reranked window after, so its scores are the routed ones)."""
    return pipeline.endswith(RERANK_SUFFIX) and not pipeline.startswith(CLINICAL_PREFIX)
