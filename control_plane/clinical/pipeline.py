"""What the clinical search pipelines' two models compute (the inference service serves them to
ml-commons; control_plane/inference/clinical.py).

Request side, ``rewrite``: a client's plain query — ``{"match": {"text": "..."}}``, or a ``bool`` whose
``must`` is that match and whose ``filter`` holds the client's filters — becomes the product's hybrid
query (control_plane/query/components.py ``product_text_hybrid``): field weights, candidate depth, and
the client's filters on every sub-query, plus the source restriction the question's intents ask for
(the same ``plan_clinical`` /v1/search runs). The client's filters are only ever added to, so a pipeline
never widens what a request may see.

Response side, ``route``: the fused window's hits (the routing fields of each ``_source``: chunk_id,
doc_id, intent_hint, is_table, near_empty, and the fused score that a
``rerank by_field ... keep_previous_score`` step wrote as ``previous_score``, since ml_inference cannot
read ``_score``) and the request's query give each hit its routed score (control_plane/clinical/routing.py,
the same formula /v1/search applies), and a short note of the route applied to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from control_plane.clinical.intents import IntentConfig
from control_plane.clinical.planning import ClinicalPlan, plan_clinical
from control_plane.clinical.routing import (
    Candidate,
    route_factor,
    routed_scores,
    sink_near_empty,
    topical_documents,
)
from control_plane.config.settings import FacetSettings, SectionRoutingSettings
from control_plane.errors import ClientError
from control_plane.query.components import product_text_hybrid

TEXT_FIELD: Final = "text"
SOURCE_FIELD: Final = "source"
SCORE_FIELD: Final = "previous_score"
_FORM = (
    'send {"match": {"text": "<question>"}}, or {"bool": {"must": [{"match": {"text": "<question>"}}], '
    '"filter": [...]}} to add filters'
)


class PipelineQueryError(ClientError, ValueError):
    """The client's query is not a form the clinical pipelines read; the message says which form is."""


@dataclass(frozen=True)
class ClientQuery:
    """A client's question and its own filter clauses."""

    text: str
    filters: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class Rewrite:
    """The hybrid query to run, the question (for a rerank's query context) and the plan behind it."""

    query: dict[str, Any]
    text: str
    plan: ClinicalPlan


@dataclass(frozen=True)
class Route:
    """One routed score per hit (the hits' order) and a note per hit of what routing did to it."""

    scores: tuple[float, ...]
    notes: tuple[str, ...]


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def match_text(clause: Mapping[str, Any]) -> str | None:
    """The question of a ``match`` on ``text`` (short or long form), else None."""
    match = clause.get("match")
    if not isinstance(match, Mapping) or set(match) != {TEXT_FIELD}:
        return None
    value = match[TEXT_FIELD]
    text = value.get("query") if isinstance(value, Mapping) else value
    return text if isinstance(text, str) and text.strip() else None


def client_query(query: Mapping[str, Any]) -> ClientQuery:
    """Read the client's query; anything else is refused with the form to send."""
    text = match_text(query)
    if text is not None:
        return ClientQuery(text)
    clause = query.get("bool")
    if not isinstance(clause, Mapping) or len(query) != 1:
        raise PipelineQueryError(f"the clinical pipelines read a question, got {sorted(query)}: {_FORM}")
    extra = sorted(set(clause) - {"must", "filter", "boost", "adjust_pure_negative"})
    if extra:
        raise PipelineQueryError(f"the pipelines take a bool's must and filter, not {extra}: {_FORM}")
    musts = [text for text in map(match_text, _as_list(clause.get("must", []))) if text is not None]
    if len(musts) != 1 or len(_as_list(clause.get("must", []))) != 1:
        raise PipelineQueryError(f"a bool's must needs exactly one match on text: {_FORM}")
    filters = tuple(f for f in _as_list(clause.get("filter", [])) if isinstance(f, Mapping))
    return ClientQuery(musts[0], filters)


def filters_sources(filters: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the client's own filters already choose sources (then no intent narrows them)."""
    for clause in filters:
        for kind in ("term", "terms"):
            body = clause.get(kind)
            if isinstance(body, Mapping) and SOURCE_FIELD in body:
                return True
    return False


def rewrite(
    query: Mapping[str, Any],
    config: IntentConfig,
    facets: FacetSettings,
    depth: int,
    ef_search: int | None = None,
) -> Rewrite:
    """The product's hybrid query for a client's plain query (see the module docstring)."""
    client = client_query(query)
    plan = plan_clinical(client.text, config, facets, sources_filtered=filters_sources(client.filters))
    filters = list(client.filters)
    if plan.sources:
        filters.append({"terms": {SOURCE_FIELD: list(plan.sources)}})
    semantic = plan.semantic_text(client.text)
    hybrid = product_text_hybrid(client.text, depth, filters, ef_search, plan.bm25_fields, semantic)
    return Rewrite(query=hybrid, text=client.text, plan=plan)


def plain_rewrite(query: Mapping[str, Any], depth: int, ef_search: int | None = None) -> Rewrite:
    """The hybrid query without any clinical step: what a rewrite degrades to when the clinical step
    fails (the client's filters kept, no intent's restriction, the base field weights)."""
    client = client_query(query)
    hybrid = product_text_hybrid(client.text, depth, client.filters, ef_search)
    return Rewrite(query=hybrid, text=client.text, plan=ClinicalPlan())


def question_text(query: Mapping[str, Any]) -> str:
    """The question inside the request the response side sees: the hybrid query's named BM25 clause
    (the rewrite ran), or the client's own query (it did not)."""
    hybrid = query.get("hybrid")
    if isinstance(hybrid, Mapping):
        for clause in hybrid.get("queries", []):
            multi = clause.get("multi_match") if isinstance(clause, Mapping) else None
            if isinstance(multi, Mapping) and isinstance(multi.get("query"), str):
                return str(multi["query"])
        raise PipelineQueryError("the hybrid query has no multi_match clause to read the question from")
    return client_query(query).text


def candidate(hit: Mapping[str, Any], index: int) -> Candidate:
    """What routing needs of a hit's _source; a hit without its fused score or ids is refused by name."""
    missing = [name for name in ("doc_id", SCORE_FIELD) if hit.get(name) is None]
    if missing:
        raise PipelineQueryError(
            f"hit {index} has no {missing}: keep doc_id, start, intent_hint, is_table, near_empty in _source"
        )
    return Candidate(
        chunk_id=str(hit.get("chunk_id") or f"hit-{index}"),
        doc_id=str(hit["doc_id"]),
        score=float(hit[SCORE_FIELD]),
        intent_hint=hit.get("intent_hint"),
        is_table=bool(hit.get("is_table")),
        near_empty=bool(hit.get("near_empty")),
    )


def route(
    hits: Sequence[Mapping[str, Any]],
    query: Mapping[str, Any],
    config: IntentConfig,
    facets: FacetSettings,
    params: SectionRoutingSettings,
) -> Route:
    """Routed scores for the window's hits (any order: they are ranked by fused score first, ties in
    the order given), as /v1/search routes its fused list: the first ``params.depth`` are its fused list
    and the hits below stand for its section fetch (a routed section enters with its lift alone; the
    rest keep ``score / best`` under them). With no boost, the fused scores unchanged."""
    candidates = [candidate(hit, index) for index, hit in enumerate(hits)]
    if len({c.chunk_id for c in candidates}) != len(candidates):
        raise PipelineQueryError("two hits share a chunk_id: route one index's hits at a time")
    plan = plan_clinical(question_text(query), config, facets)
    ranked = sorted(candidates, key=lambda c: -c.score)  # stable: ties keep the order given
    considered, below = ranked[: params.depth], ranked[params.depth :]
    scores = routed_scores(considered, plan.boosts, params, fetched=below)
    best = max((c.score for c in considered), default=0.0)
    for c in below:
        scores.setdefault(c.chunk_id, c.score / best if plan.boosts and best > 0 else c.score)
    if plan.boosts:
        scores = sink_near_empty(scores, candidates)
    topical = topical_documents(considered, params) if plan.boosts else {}
    notes = tuple(_note(c, plan, topical) for c in candidates)
    return Route(scores=tuple(scores[c.chunk_id] for c in candidates), notes=notes)


def _note(candidate: Candidate, plan: ClinicalPlan, topical: Mapping[str, float]) -> str:
    """What routing did to a hit: the intents, and the factor it was lifted by (if any)."""
    intents = ",".join(intent.name for intent in plan.intents) or "none"
    factor = route_factor(candidate, plan.boosts) if candidate.doc_id in topical else 1.0
    return f"intents={intents}; lifted x{factor:.2f}" if factor > 1.0 else f"intents={intents}; not lifted"
