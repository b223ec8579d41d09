"""One question through two configurations, side by side, and where their hits differ. Both
configurations are checked before either is searched, so a bad one costs nothing. Searches are the
key's tenant's, whatever the configuration names: /v1/search confines itself, a pipeline query gets the
tenant filter /v1/search applies and the index the tenant may read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from opensearchpy import OpenSearch

from control_plane.api.console.configs import (
    CompareRequest,
    Configuration,
    PipelineConfiguration,
    check_pipeline,
    search_spec,
)
from control_plane.api.console.diff import Ranked, compare
from control_plane.api.console.hits import ConsoleHit, pipeline_hits, search_hits
from control_plane.api.console.overview import known_pipelines
from control_plane.config.settings import Settings
from control_plane.search.index_choice import search_index, searches_tenant_pattern
from control_plane.search.pipeline_query import PipelineQuery, pipeline_search
from control_plane.search.request import filter_clauses
from control_plane.search.results import BoostInfo, ChunkResult, SearchMetadata
from control_plane.search.service import SearchService
from control_plane.search.spec import Filters


@dataclass(frozen=True)
class Column:
    name: str
    configuration: dict[str, Any]
    facts: dict[str, str]
    hits: list[ConsoleHit]


def search_facts(metadata: SearchMetadata) -> dict[str, str]:
    """What the answer says about how it was made, one line each."""
    fusion = metadata.fusion
    weights = ", ".join(f"{name} {w:g}" for name, w in (fusion.weights or {}).items())
    return {
        "fusion": f"{fusion.method} ({weights})" if weights else fusion.method,
        "components": ", ".join(metadata.components_used),
        "intents": ", ".join(f"{i.name} {i.confidence:.2f}" for i in metadata.intents) or "none",
        "boosts": ", ".join(_boost_text(b) for b in metadata.boosts) or "none",
        "reranked": "yes" if metadata.reranked else f"no ({metadata.reranker_error or 'not asked'})",
        "component errors": ", ".join(metadata.component_errors) or "none",
        "took": f"{metadata.timings.total_ms:.0f} ms",
    }


def _boost_text(boost: BoostInfo) -> str:
    tables = " (tables)" if boost.tables_only else ""
    return f"{boost.intent} {boost.field}={boost.values}{tables} x{boost.factor:g}"


class Comparison:
    """The compare endpoint's work for one tenant."""

    def __init__(self, settings: Settings, client: OpenSearch, service: SearchService, tenant: str) -> None:
        self.settings = settings
        self.client = client
        self.service = service
        self.tenant = tenant
        self._pipelines: list[str] | None = None

    def pipelines(self) -> list[str]:
        if self._pipelines is None:
            self._pipelines = known_pipelines(self.client, self.settings)
        return self._pipelines

    def prepare(
        self, configuration: Configuration, wanted: CompareRequest, name: str
    ) -> Callable[[], Column]:
        """The column's search, checked now (400 naming ``name``'s problem; 403 for another tenant's
        index) and run later."""
        label = name.lower()
        shown = configuration.model_dump(exclude_none=True)
        if isinstance(configuration, PipelineConfiguration):
            check_pipeline(configuration, self.pipelines(), label)
            index = search_index(self.settings, self.tenant, configuration.index)
            query = PipelineQuery(
                wanted.question,
                configuration.pipeline,
                wanted.size,
                filters=tuple(filter_clauses(self.tenant, Filters())),
                named=True,
            )
            return lambda: self._pipeline_column(name, shown, index, query)
        spec = search_spec(configuration, wanted.question, wanted.size, label)
        search_index(self.settings, self.tenant, configuration.index)

        def run() -> Column:
            answer = self.service.search(spec, tenant_id=self.tenant, index=configuration.index)
            chunks = [r for r in answer.results if isinstance(r, ChunkResult)]
            hits = search_hits(chunks, answer.metadata, spec.boosts)
            return Column(name, shown, search_facts(answer.metadata), hits)

        return run

    def _pipeline_column(self, name: str, shown: dict[str, Any], index: str, query: PipelineQuery) -> Column:
        unavailable = searches_tenant_pattern(self.settings, self.tenant, index)
        response = pipeline_search(self.client, index, query, self.settings.models.rerank_top_n, unavailable)
        hits = pipeline_hits(response["hits"]["hits"], query.pipeline, query.text)
        total = response["hits"].get("total", {})
        facts = {
            "pipeline": query.pipeline,
            "index": index,
            "matched": str(total.get("value", "?")) if isinstance(total, dict) else str(total),
            "took": f"{response.get('took', 0)} ms (OpenSearch)",
        }
        return Column(name, shown, facts, hits)

    def run(self, wanted: CompareRequest) -> dict[str, Any]:
        searches = [self.prepare(wanted.a, wanted, "A"), self.prepare(wanted.b, wanted, "B")]
        a, b = (search() for search in searches)
        marks_a, marks_b, summary = compare(
            [Ranked(h.chunk_id, h.doc_id) for h in a.hits], [Ranked(h.chunk_id, h.doc_id) for h in b.hits]
        )
        return {
            "question": wanted.question,
            "size": wanted.size,
            "columns": [_column_json(a, marks_a), _column_json(b, marks_b)],
            "diff": asdict(summary),
        }


def _column_json(column: Column, marks: list[Any]) -> dict[str, Any]:
    return {
        "name": column.name,
        "configuration": column.configuration,
        "facts": column.facts,
        "hits": [
            {**hit.model_dump(mode="json"), "mark": asdict(mark)}
            for hit, mark in zip(column.hits, marks, strict=True)
        ],
    }
