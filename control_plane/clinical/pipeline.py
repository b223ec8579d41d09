"""What the clinical search pipelines' two models compute (the inference service serves them to
ml-commons; control_plane/inference/clinical.py).

Request side, ``rewrite``: a client's search request — its query in any form
control_plane/clinical/client_forms.py reads (a match or multi_match, in a bool with filters, or a hybrid
with the client's knn) — becomes the product's hybrid query (control_plane/query/components.py
``product_text_hybrid``): field weights, candidate depth, and the client's filters on every sub-query,
plus the source restriction the question's intents ask for (the same ``plan_clinical`` /v1/search
runs). The client's filters are only ever added to, so a pipeline never widens what a request may see.

Response side, ``route``: the fused window's hits (the routing fields of each ``_source``: chunk_id, doc_id,
intent_hint, is_table, near_empty, identifiers, the title_path and topics a question about many records judges
them by, and the fused score that a ``rerank by_field ... keep_previous_score`` step wrote as
``previous_score``, since ml_inference cannot read ``_score``) and the request's query give each hit its
routed score (control_plane/clinical/section_routing.py, the same formula /v1/search applies), and a short
note of the route applied to it. The rewrite adds those fields to a client's ``_source``
(``with_routing_fields``), so routing holds whatever the client asks to see; the hits then carry them too.
After the cut to the page, ``page_metadata`` builds each page hit's ``metadata`` object (what a RAG library's
document shows) from its fields and that note: built for the page alone, because ml-commons re-reads a model's
whole answer for every hit it writes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Final, Literal

from control_plane.clinical.client_forms import (
    ClientQuery,
    PipelineQueryError,
    client_query,
    filters_sources,
)
from control_plane.clinical.intents import IntentConfig
from control_plane.clinical.planning import ClinicalPlan, plan_clinical
from control_plane.clinical.route_notes import absent_note, intents_label, lifted_note, not_lifted_note
from control_plane.clinical.section_routing import (
    Candidate,
    route_factor,
    routed_scores,
    sink_near_empty,
    topical_documents,
)
from control_plane.config.search_settings import FacetSettings, SectionRoutingSettings
from control_plane.fusion.methods import FusionMethod
from control_plane.query.components import product_text_hybrid
from control_plane.query.named_records import absent_records

SOURCE_FIELD: Final = "source"
SCORE_FIELD: Final = "previous_score"
BM25_CLAUSE_NAME: Final = "bm25"
# What the route model reads of each hit (and the field the first rerank step sorts by, so it writes
# each hit's fused score to previous_score): the rewrite adds them to a client's _source.
ROUTING_FIELDS: Final = (
    "chunk_id",
    "doc_id",
    "start",
    "intent_hint",
    "is_table",
    "near_empty",
    "identifiers",
    "title_path",
    "topics",
)
# What each hit's ``metadata`` object holds (the fields a RAG library's document shows as its metadata:
# LlamaIndex needs the object, LangChain reads it), where the hit has them, with the routing note and
# the fused score.
METADATA_FIELDS: Final = (
    "doc_id",
    "chunk_id",
    "source",
    "section",
    "section_label",
    "is_table",
    "intent_hint",
)

# What the route model answers, per pipeline form (the step's ``model_config.output``;
# resources/catalog.py ``ROUTE_OUTPUTS`` maps each into the hits). ml-commons re-reads the model's whole
# answer for every hit and every mapping, so a step's cost grows with its window times the answer's size:
# the window's answer stays small and the metadata a RAG library shows is built for the page alone.
# ``metadata``: over the window, one small object per hit (its routed score, and its route note unless it is
# the plan's "not lifted" note, which most hits of a window share: the page step writes that one back;
# answering it for every hit cost 5 ms at P50 and 12 at P95 over a window of 100); ``page``: after the
# cut to the page, each hit's ``metadata`` object (``METADATA_FIELDS``, the note the window's step wrote
# or implied, the fused score), no routing; ``fields``: the scores and notes as two lists beside
# the hit's fields, for a client that reads those as its metadata (Haystack).
RouteOutput = Literal["metadata", "page", "fields"]
ROUTE_NOTE_FIELD: Final = "clinical_route"
ROUTE_SCORE_FIELD: Final = "route_score"
METADATA_FIELD: Final = "metadata"
NO_ROUTE_STEP: Final = (
    "not routed: the route step did not answer (the clinical route model could not be reached)"
)

__all__ = [
    "ClientQuery",
    "PipelineQueryError",
    "Rewrite",
    "Route",
    "RouteOutput",
    "client_query",
    "implied_note",
    "page_metadata",
    "plain_rewrite",
    "rewrite",
    "route",
    "route_answered",
    "route_note",
]


@dataclass(frozen=True)
class Rewrite:
    """The hybrid query to run, the question (for a rerank's query context), the plan behind it and the
    ``_source`` the request must fetch (the client's, with the routing fields added)."""

    query: dict[str, Any]
    text: str
    plan: ClinicalPlan
    source: Any = None  # None: the request fetches the whole _source (it named none)


@dataclass(frozen=True)
class Route:
    """One routed score per hit (the hits' order) and a note per hit of what routing did to it."""

    scores: tuple[float, ...]
    notes: tuple[str, ...]
    unrouted: str | None = None  # why routing did not run (a metric label), None when it did
    implied_note: str | None = None  # the note the ``metadata`` answer leaves out (the page step's default)

    def answer(self, output: RouteOutput) -> dict[str, list[Any]]:
        """The route model's answer over the window in a pipeline form's shape (``RouteOutput``; the
        ``page`` step answers with :func:`page_metadata`, without routing)."""
        scores = [round(score, 7) for score in self.scores]
        if output == "fields":
            return {"scores": scores, "notes": list(self.notes)}
        if output == "page":
            raise ValueError("the page step's answer is page_metadata(hits): it does not route")
        return {
            METADATA_FIELD: [
                {ROUTE_SCORE_FIELD: score}
                if note == self.implied_note
                else {ROUTE_NOTE_FIELD: note, ROUTE_SCORE_FIELD: score}
                for note, score in zip(self.notes, scores, strict=True)
            ]
        }


def page_metadata(hits: Sequence[Mapping[str, Any]], implied_note: str) -> dict[str, list[dict[str, Any]]]:
    """Each page hit's ``metadata`` object: the ``METADATA_FIELDS`` it has, the route note the window's
    step left in its ``metadata`` (``implied_note``, the plan's "not lifted" note, where that step answered
    without one; :data:`NO_ROUTE_STEP` where it did not answer) and its fused score."""
    return {
        METADATA_FIELD: [
            {
                **{name: hit[name] for name in METADATA_FIELDS if hit.get(name) is not None},
                ROUTE_NOTE_FIELD: route_note(hit) or (implied_note if route_answered(hit) else NO_ROUTE_STEP),
                **({"fused_score": hit[SCORE_FIELD]} if hit.get(SCORE_FIELD) is not None else {}),
            }
            for hit in hits
        ]
    }


def route_answered(source: Mapping[str, Any]) -> bool:
    """Whether the window's route step wrote this hit's ``metadata`` (its routed score, at least)."""
    return isinstance(source.get(METADATA_FIELD), Mapping)


def implied_note(query: Mapping[str, Any], config: IntentConfig, facets: FacetSettings) -> str:
    """The route note the window's step leaves out of its answer for this query: its plan's "not lifted"
    note (the same plan :func:`route` makes)."""
    return not_lifted_note(_intents_label(plan_clinical(question_text(query), config, facets)))


def route_note(source: Mapping[str, Any]) -> str | None:
    """A hit's route note, where a clinical pipeline's form writes it (in ``metadata``, or beside the
    hit's fields in the Haystack form); None when the route step did not answer."""
    metadata = source.get(METADATA_FIELD)
    note = metadata.get(ROUTE_NOTE_FIELD) if isinstance(metadata, Mapping) else source.get(ROUTE_NOTE_FIELD)
    return note if isinstance(note, str) else None


def check_servable(request: Mapping[str, Any], depth: int) -> None:
    """Refuse what the pipelines cannot serve: ``from`` past the first page (they route one fused
    window, the first), more hits than the candidate depth fuses, and ``highlight`` (OpenSearch 3.6
    returns no highlights for a hybrid query, checked on the local node: neural-search issue 1215)."""
    if request.get("highlight") is not None:
        raise PipelineQueryError(
            "the clinical pipelines answer with a hybrid query, for which OpenSearch returns no highlights "
            "(neural-search issue 1215): leave highlight out and mark the question's words on the client"
        )
    start = request.get("from")
    if isinstance(start, int) and start > 0:
        raise PipelineQueryError(
            f"the clinical pipelines route the first page only, got from={start}: ask for from + size "
            f"hits with from 0 (at most {depth}) and page on the client"
        )
    size = request.get("size")
    if isinstance(size, int) and size > depth:
        raise PipelineQueryError(
            f"the clinical pipelines answer at most {depth} hits (the candidate depth they fuse), "
            f"got size={size}: ask for {depth} or fewer"
        )


def with_routing_fields(source: Any) -> Any:
    """A request's ``_source`` (as OpenSearch serialises it) widened to the fields routing reads:
    ``false`` becomes those fields; a list of includes gains them. An exclude that names or matches one is
    refused (PipelineQueryError): dropping it returned what the client excluded (``["t*"]`` gave back
    ``text``; issue 73), and a field fetched for routing cannot be taken out of the answer again. No
    ``_source`` (None) stays None: the whole _source is fetched."""
    if source is None or source is True:
        return source
    if source is False:
        return {"includes": list(ROUTING_FIELDS), "excludes": []}
    if isinstance(source, str):
        source = {"includes": [source]}
    if isinstance(source, list):
        source = {"includes": source}
    if not isinstance(source, Mapping):
        raise PipelineQueryError(
            f"_source must be a boolean, a field list or includes/excludes, got {source!r}"
        )
    includes = _field_list(source.get("includes", source.get("include", [])))
    excludes = _field_list(source.get("excludes", source.get("exclude", [])))
    if includes:
        includes += [field for field in ROUTING_FIELDS if field not in includes]
    needed = [field for field in ROUTING_FIELDS if any(fnmatchcase(field, e) for e in excludes)]
    if needed:
        raise PipelineQueryError(
            f"_source excludes {excludes} would drop {needed}, which the clinical pipelines read of every "
            'hit to route it: exclude other fields by name (e.g. "excludes": ["embedding", "sparse_terms"]), '
            "or search through hybrid-minmax or hybrid-rrf, which do not route"
        )
    return {"includes": includes, "excludes": excludes}


def _field_list(fields: Any) -> list[str]:
    """A _source includes or excludes as a list: OpenSearch takes one field as a plain string too (read
    character by character, ``"embedding"`` excluded nine one-letter fields and returned the embedding)."""
    if fields is None:
        return []
    if isinstance(fields, str):
        return [fields]
    if not isinstance(fields, list) or not all(isinstance(field, str) for field in fields):
        raise PipelineQueryError(
            f"_source includes and excludes are field names or lists of them, got {fields!r}"
        )
    return list(fields)


def rewrite(
    request: Mapping[str, Any],
    config: IntentConfig,
    facets: FacetSettings,
    depth: int,
    ef_search: int | None = None,
) -> Rewrite:
    """The product's hybrid query for a client's search request (its ``query`` in any form
    client_forms reads), and the ``_source`` routing needs (see the module docstring)."""
    check_servable(request, depth)
    client = client_query(request.get("query"))
    plan = plan_clinical(client.text, config, facets, sources_filtered=filters_sources(client.filters))
    filters = list(client.filters)
    if plan.sources:
        filters.append({"terms": {SOURCE_FIELD: list(plan.sources)}})
    semantic = plan.semantic_text(client.text)
    hybrid = product_text_hybrid(client.text, depth, filters, ef_search, plan.bm25_fields, semantic)
    return Rewrite(
        query=hybrid, text=client.text, plan=plan, source=with_routing_fields(request.get("_source"))
    )


def plain_rewrite(request: Mapping[str, Any], depth: int, ef_search: int | None = None) -> Rewrite:
    """The hybrid query without any clinical step: what a rewrite degrades to when the clinical step
    fails (the client's filters kept, no intent's restriction, the base field weights)."""
    check_servable(request, depth)
    client = client_query(request.get("query"))
    hybrid = product_text_hybrid(client.text, depth, client.filters, ef_search)
    return Rewrite(
        query=hybrid,
        text=client.text,
        plan=ClinicalPlan(),
        source=with_routing_fields(request.get("_source")),
    )


def _named_bm25(clause: Any) -> str | None:
    """The question of the rewrite's BM25 clause (a multi_match named bm25) anywhere in ``clause``:
    OpenSearch may have wrapped it (a hybrid's filter is pushed into each sub-query)."""
    if isinstance(clause, list):
        return next((q for q in map(_named_bm25, clause) if q is not None), None)
    if not isinstance(clause, Mapping):
        return None
    multi = clause.get("multi_match")
    if (
        isinstance(multi, Mapping)
        and multi.get("_name") == BM25_CLAUSE_NAME
        and isinstance(multi.get("query"), str)
    ):
        return str(multi["query"])
    return next((q for q in map(_named_bm25, clause.values()) if q is not None), None)


def question_text(query: Mapping[str, Any]) -> str:
    """The question inside the request the response side sees: the rewrite's named BM25 clause (the
    rewrite ran), or the client's own query (it did not)."""
    text = _named_bm25(query)
    return text if text is not None else client_query(query).text


def missing_fields(hits: Sequence[Mapping[str, Any]]) -> list[str]:
    """The routing fields some hit lacks (doc_id, and the fused score the first rerank step writes)."""
    return [name for name in ("doc_id", SCORE_FIELD) if any(hit.get(name) is None for hit in hits)]


def candidate(hit: Mapping[str, Any], index: int) -> Candidate:
    """What routing needs of a hit's _source (``missing_fields`` found it there); a score that is not a
    finite number is the caller's error, named."""
    score = hit[SCORE_FIELD]
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise PipelineQueryError(f"hit {index}: {SCORE_FIELD} {score!r} is not a finite number")
    return Candidate(
        chunk_id=str(hit.get("chunk_id") or f"hit-{index}"),
        doc_id=str(hit["doc_id"]),
        score=float(score),
        intent_hint=hit.get("intent_hint"),
        is_table=bool(hit.get("is_table")),
        near_empty=bool(hit.get("near_empty")),
    )


def unrouted(hits: Sequence[Mapping[str, Any]], reason: str, why: str) -> Route:
    """The answer when routing cannot run on these hits: the order they came in (the fused order when
    the fused score is missing, since the step that writes it is what failed; else by fused score), and
    a note on every hit saying why nothing was routed."""
    scores = [hit.get(SCORE_FIELD) for hit in hits]
    if all(isinstance(score, int | float) for score in scores):
        kept = tuple(float(score) for score in scores)  # type: ignore[arg-type]
    else:
        kept = tuple(float(len(hits) - index) for index in range(len(hits)))
    return Route(scores=kept, notes=tuple(f"not routed: {why}" for _ in hits), unrouted=reason)


def route(
    hits: Sequence[Mapping[str, Any]],
    query: Mapping[str, Any],
    config: IntentConfig,
    facets: FacetSettings,
    params: SectionRoutingSettings,
    fusion: FusionMethod | None = None,
) -> Route:
    """Routed scores for the window's hits (any order: they are ranked by fused score first, ties in
    the order given), as /v1/search routes its fused list: the first ``params.depth`` are its fused list
    and the hits below stand for its section fetch (a routed section enters with its lift alone; the
    rest keep ``score / best`` under them). With no boost, the fused scores unchanged. Hits that lack a
    routing field are answered ``unrouted``, never refused: the pipeline would drop the refusal and
    answer without a word (its response steps ignore failures so that a search still answers)."""
    missing = missing_fields(hits)
    if missing:
        why = f"hits lack {missing} in _source (keep {list(ROUTING_FIELDS)})"
        return unrouted(hits, "missing_fields", why)
    candidates = [candidate(hit, index) for index, hit in enumerate(hits)]
    if len({c.chunk_id for c in candidates}) != len(candidates):
        return unrouted(hits, "duplicate_ids", "two hits share a chunk_id (route one index's hits at a time)")
    question = question_text(query)
    plan = plan_clinical(question, config, facets)
    params = plan.section_routing(params, fusion)
    absent = absent_records(question, (hit.get("identifiers") for hit in hits)) if plan.boosts else ()
    if absent:
        return _not_here(candidates, plan, absent)
    ranked = sorted(candidates, key=lambda c: -c.score)  # stable: ties keep the order given
    considered, below = ranked[: params.depth], ranked[params.depth :]
    declarations = plan.declarations(hits)
    topical = topical_documents(considered, params, plan.boosts, declarations) if plan.boosts else {}
    scores = routed_scores(considered, plan.boosts, params, fetched=below, topical=topical)
    best = max((c.score for c in considered), default=0.0)
    for c in below:
        scores.setdefault(c.chunk_id, c.score / best if plan.boosts and best > 0 else c.score)
    if plan.boosts:
        scores = sink_near_empty(scores, candidates)
    notes = tuple(_note(c, plan, topical) for c in candidates)
    scores_in_order = tuple(scores[c.chunk_id] for c in candidates)
    return Route(scores_in_order, notes, implied_note=not_lifted_note(_intents_label(plan)))


def _intents_label(plan: ClinicalPlan) -> str:
    return intents_label(intent.name for intent in plan.intents)


def _not_here(candidates: Sequence[Candidate], plan: ClinicalPlan, absent: Sequence[str]) -> Route:
    """The fused scores, unrouted, when every record the question names is absent from the index (no
    other record's section is lifted in its name), each hit saying so."""
    note = absent_note(_intents_label(plan), absent)
    return Route(scores=tuple(c.score for c in candidates), notes=tuple(note for _ in candidates))


def _note(candidate: Candidate, plan: ClinicalPlan, topical: Mapping[str, float]) -> str:
    """What routing did to a hit: the intents, and the factor it was lifted by (if any)."""
    factor = route_factor(candidate, plan.boosts) if candidate.doc_id in topical else 1.0
    return lifted_note(_intents_label(plan), factor)
