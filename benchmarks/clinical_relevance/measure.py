"""What the clinical benchmark searches: per query the fused chunks with boosts off, the detected boosts,
the routed sections of the most topical records and (eligibility) the trials-only search, captured once;
the served end-to-end rankings; and intent detection against the split's labels."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from control_plane.clinical.intent_quality import Form, LabelledQuery, QualityReport, measure_detection
from control_plane.clinical.intents import Boost
from control_plane.clinical.planning import intent_config, intent_config_path
from control_plane.config.search_settings import SectionRoutingSettings
from control_plane.config.settings import Settings
from control_plane.fusion.methods import FusionMethod
from control_plane.search.intent_plan import plan_intents
from control_plane.search.results import ChunkResult
from control_plane.search.section_routing import topical_records
from control_plane.search.sections import fetch_sections
from control_plane.search.service import SearchService
from control_plane.search.spec import Filters, SearchSpec
from control_plane.testsets.catalog import Query

FETCH_DOCUMENTS = 10  # sections are fetched for this many topical records (>= any max_documents tried)
ELIGIBILITY = "eligibility"
TRIAL_SOURCES = ("ctgov",)


@dataclass(frozen=True)
class Captured:
    """One query's material: its fused chunks (boosts off), boosts and fetched routed sections."""

    query: Query
    fused: list[ChunkResult]
    boosts: Sequence[Boost]
    sections: list[ChunkResult]
    # The fused chunks searched only in trials (eligibility detected: the restrict_to_sources switch).
    trials_only: list[ChunkResult] | None = None


def capture(
    service: SearchService,
    settings: Settings,
    queries: Sequence[Query],
    fusion: FusionMethod,
    index: str,
    tenant: str,
) -> list[Captured]:
    depth = settings.search.section_routing.depth
    captured: list[Captured] = []
    for number, query in enumerate(queries, start=1):
        spec = SearchSpec(
            query=query.text,
            size=depth,
            fusion_method=fusion,
            boosts=False,
            highlight=False,
            granularity="chunk",
        )
        response = service.search(spec, tenant, index)
        fused = [r for r in response.results if isinstance(r, ChunkResult)]
        intents = plan_intents(spec.model_copy(update={"boosts": True}), settings)
        boosts = intents.boosts
        sections: list[ChunkResult] = []
        if boosts:
            wide = SectionRoutingSettings(min_topicality=0.0, max_documents=FETCH_DOCUMENTS)
            documents = list(topical_records(fused, wide))
            sections = fetch_sections(
                service.client, index, tenant, intents.spec.filters, documents, boosts, 30
            )
        trials_only = None
        if any(b.intent == ELIGIBILITY for b in boosts):
            narrowed = spec.model_copy(update={"filters": Filters(source=list(TRIAL_SOURCES))})
            answer = service.search(narrowed, tenant, index)
            trials_only = [r for r in answer.results if isinstance(r, ChunkResult)]
        captured.append(Captured(query, fused, boosts, sections, trials_only))
        if number % 50 == 0:
            print(f"  {fusion}: {number}/{len(queries)} queries", file=sys.stderr)
    return captured


def end_to_end(
    service: SearchService, queries: Sequence[Query], fusion: FusionMethod, index: str, tenant: str
) -> dict[str, list[str]]:
    """Rankings from SearchService with boosts on: the path /v1/search serves."""
    rankings: dict[str, list[str]] = {}
    for query in queries:
        spec = SearchSpec(
            query=query.text, size=10, fusion_method=fusion, highlight=False, granularity="chunk"
        )
        rankings[query.query_id] = [r.chunk_id for r in service.search(spec, tenant, index).results]  # type: ignore[union-attr]
    return rankings


def sample_form(query: Query) -> str:
    """The query's form as the labelled-sample check names forms (exact, paraphrase, complex); a
    collection's other forms (clinical-natural's topic, clinical-fresh's implicit, ...) count as none."""
    form = query.metadata.get("form")
    return str(form) if form in get_args(Form) else "none"


def detection(queries: Sequence[Query], settings: Settings) -> QualityReport:
    """Precision and recall of intent detection against the split's intent labels, per intent."""
    labelled = [
        LabelledQuery.model_validate(
            {"query": q.text, "intents": q.metadata.get("intents") or [], "form": sample_form(q)}
        )
        for q in queries
    ]
    return measure_detection(labelled, intent_config(str(intent_config_path(settings))))
