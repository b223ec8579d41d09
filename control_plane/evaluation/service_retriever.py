"""The evaluation's retriever: every query goes through SearchService, so a run measures exactly what
/v1/search serves (the same request builder, pipelines, boosts, rerank and degradation).

Runs are at document level: the service fuses ``candidate_depth`` chunks per component and returns
one result per document (score = its best chunk's). A document's component score is the largest
non-null score that component gave any of the document's returned chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.runner import Retrieval, RetrievedDocument
from control_plane.query.components import COMPONENT_ORDER
from control_plane.search.results import ComponentScores, DocumentResult, SearchResponse

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from control_plane.config.settings import Settings
    from control_plane.evaluation.settings import TimeoutSettings
    from control_plane.search.service import SearchService


def _best(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return max(present) if present else None


def _scores(scores: Sequence[ComponentScores]) -> dict[str, float | None]:
    return {name: _best([getattr(s, name) for s in scores]) for name in COMPONENT_ORDER}


def retrieved_documents(response: SearchResponse) -> list[RetrievedDocument]:
    """The response's results as documents, best first (chunk results keep each document's first)."""
    documents: list[RetrievedDocument] = []
    seen: set[str] = set()
    for item in response.results:
        if item.doc_id in seen:
            continue
        seen.add(item.doc_id)
        if isinstance(item, DocumentResult):
            scores = _scores([chunk.component_scores for chunk in item.chunks])
        else:
            scores = _scores([item.component_scores])
        documents.append(RetrievedDocument(doc_id=item.doc_id, score=item.score, component_scores=scores))
    return documents


def degradation(response: SearchResponse) -> list[str]:
    """Why the search was not the one asked for: dropped components, a rerank that did not happen."""
    reasons = list(response.metadata.component_errors)
    if response.metadata.reranker_error:
        reasons.append(f"rerank_{response.metadata.reranker_error}")
    return reasons


class SearchServiceRetriever:
    """``Retriever`` over SearchService for one tenant and index."""

    def __init__(
        self, service: SearchService, tenant_id: str, index: str, candidate_depth: int = 300
    ) -> None:
        self.service = service
        self.tenant_id = tenant_id
        self.index = index
        self.candidate_depth = candidate_depth

    def retrieve(self, query: str, configuration: EvalConfiguration, depth: int) -> Retrieval:
        spec = configuration.search_spec(query, size=depth, candidate_depth=self.candidate_depth)
        response = self.service.search(spec, self.tenant_id, self.index)
        return Retrieval(documents=retrieved_documents(response), degraded=degradation(response))


def evaluation_service(client: OpenSearch, settings: Settings, timeouts: TimeoutSettings) -> SearchService:
    """A SearchService like the API's but with the evaluation's search budgets."""
    from control_plane.search.service import SearchService

    search = settings.search.model_copy(
        update={
            "component_timeout_ms": timeouts.component_ms,
            "rerank_timeout_ms": timeouts.rerank_ms,
            "opensearch_timeout_ms": timeouts.opensearch_ms,
        }
    )
    return SearchService(client, settings.model_copy(update={"search": search}))
