"""The retrieval components as records, and the one builder of the product's hybrid query.

A component (``RetrievalComponent``) says once what every path needs of it: its clause for a text that
OpenSearch encodes (the clinical pipelines, the Haystack retriever), its clause for what the query side
encoded (/v1/search), how its clause is named so OpenSearch reports its score per hit, how filters and
the candidate depth reach inside it, and which of the inference service's models encodes a query for it.
``COMPONENTS`` holds them in hybrid sub-query order (bm25, splade, dense), fixed because the pipelines'
weights are positional; the builders below read it when called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from control_plane.query.named_records import identifier_phrases, with_named_records

# The spec's field boosts: structured facts and tables say more per word than running text.
# `identifiers` (a record's NCT id, aliases, org/secondary ids, acronym, PMID, PMCID, DOI; on every chunk
# of the record, analysed without stemming) lets an identifier query find its record; boost 1.0 like the
# text, so an acronym that is also a word ("PROMISE") counts no more than the word in running text.
# `topics` (what the record declares it is about: a trial's conditions and their MeSH terms, an article's
# MeSH headings and keywords; on every chunk of the record) lets a chunk be found by its record's topic,
# boost 1.0 like the text: on the three clinical dev sets it raised nDCG@10 on 28 of the 30 path x fusion
# x boosts cells (+0.0001 to +0.0165, the largest on clinical/dev through clinical-rrf), lowered two by
# at most 0.0018 (model_artifacts/reports/record-topics/).
# This mapping is the one list of BM25 fields: bm25_clause, the request builder, exact evaluation and the
# clinical pipelines' reading of a client's match (client_forms.TEXT_FIELDS) all read it.
BM25_FIELD_BOOSTS: Mapping[str, float] = {
    "text": 1.0,
    "title_path": 1.4,
    "facet_json": 1.6,
    "table_lines": 1.2,
    "identifiers": 1.0,
    "topics": 1.0,
}
# The structured facts of a chunk (JSON text, BM25-searchable): facet granularity returns only chunks that
# have it, and a clinical intent raises its weight (control_plane/clinical/facet_boost.py).
FACET_FIELD = "facet_json"
SPARSE_FIELD = "sparse_terms"
DENSE_FIELD = "embedding"
# The stored vectors: most of a hit's bytes, and nothing a client reads. Every answer leaves them out of
# _source (the documented direct queries: docs/clients/, `biohybrid query`, /v1/search and /v1/rewrite).
VECTOR_FIELDS: tuple[str, ...] = (DENSE_FIELD, SPARSE_FIELD)


def bm25_clause(text: str, boosts: Mapping[str, float] = BM25_FIELD_BOOSTS) -> dict[str, Any]:
    fields = [f"{name}^{boost:g}" for name, boost in boosts.items()]
    return {"multi_match": {"query": text, "fields": fields, "type": "best_fields"}}


@dataclass(frozen=True)
class SparseAnn:
    """The query-time parameters of a SEISMIC (``sparse_vector``) search: the ``top_n`` heaviest query
    tokens choose the posting lists visited, ``heap_factor`` how eagerly clusters are skipped, ``k`` how
    many documents each shard returns (the component's candidate depth: SEISMIC's default is 10)."""

    top_n: int
    heap_factor: float
    k: int

    def method_parameters(self) -> dict[str, Any]:
        return {"top_n": self.top_n, "heap_factor": self.heap_factor, "k": self.k}


@dataclass(frozen=True)
class QueryEncodings:
    """What the query side computed before the request: a dense vector, SPLADE query terms, or (in
    doc-only sparse mode) the ml-commons tokenizer model that encodes the text inside OpenSearch."""

    dense_vector: Sequence[float] | None = None
    sparse_tokens: Mapping[str, float] | None = None
    sparse_model_id: str | None = None


@dataclass(frozen=True)
class ClauseInput:
    """What a component's clause is made from: the question (BM25 reads it), the text the encoders
    search (its clinical topic; default the question), the candidate depth, the BM25 field weights, and
    what the query side encoded (for a clause by encoding)."""

    text: str
    depth: int
    semantic_text: str | None = None
    bm25_fields: Mapping[str, float] = field(default_factory=lambda: BM25_FIELD_BOOSTS)
    encodings: QueryEncodings = field(default_factory=QueryEncodings)
    sparse_ann: SparseAnn | None = None

    @property
    def semantic(self) -> str:
        return self.semantic_text or self.text


@dataclass(frozen=True)
class Restriction:
    """What reaches inside a component's clause (``product_hybrid``): the filters its k best are found
    within, the HNSW ``ef_search`` raised to the candidate depth, whether the sparse field is SEISMIC."""

    depth: int
    filters: Mapping[str, Any] | None
    ef_search: int | None
    sparse_ann: bool


Clause = dict[str, Any]
EncoderRole = Literal["dense", "sparse"]


@dataclass(frozen=True)
class RetrievalComponent:
    """One retrieval component: everything the query builders, the search service and the results
    read of it. ``encoder``: the inference service's model role that encodes a query for it (None:
    OpenSearch analyses the text itself)."""

    name: str
    encoder: EncoderRole | None
    by_text: Callable[[ClauseInput], Clause]
    by_encoding: Callable[[ClauseInput], Clause]
    named: Callable[[Clause, str], Clause]
    restrict: Callable[[Clause, Restriction], None] = lambda clause, restriction: None


def _neural_sparse(query: dict[str, Any], ann: SparseAnn | None) -> dict[str, Any]:
    if ann is not None:
        query["method_parameters"] = ann.method_parameters()
    return {"neural_sparse": {SPARSE_FIELD: query}}


def sparse_text_clause(
    text: str, model_id: str | None = None, ann: SparseAnn | None = None
) -> dict[str, Any]:
    """neural_sparse by query text: ml-commons encodes it with ``model_id`` (default: the pipeline's).
    ``ann``: the field is SEISMIC (neural-search then asks the model for token ids itself)."""
    query: dict[str, Any] = {"query_text": text}
    if model_id is not None:
        query["model_id"] = model_id
    return _neural_sparse(query, ann)


def dense_text_clause(text: str, k: int, model_id: str | None = None) -> dict[str, Any]:
    """neural by query text: ml-commons encodes it with ``model_id`` (default: the pipeline's)."""
    query: dict[str, Any] = {"query_text": text, "k": k}
    if model_id is not None:
        query["model_id"] = model_id
    return {"neural": {DENSE_FIELD: query}}


def sparse_tokens_clause(query_tokens: Mapping[str, float], ann: SparseAnn | None = None) -> dict[str, Any]:
    """neural_sparse with pre-encoded query term weights (no model needed). On a SEISMIC field
    (``ann`` given) the keys must be token ids (``token_id_weights``), as the documents' are."""
    return _neural_sparse({"query_tokens": dict(query_tokens)}, ann)


def token_id_weights(tokens: Mapping[str, float], vocabulary: Mapping[str, int]) -> dict[str, float]:
    """Word-piece weights keyed by their vocabulary ids (as strings), what a SEISMIC ``sparse_vector``
    holds and is queried with. A token outside the vocabulary has no id and is left out."""
    return {str(vocabulary[token]): weight for token, weight in tokens.items() if token in vocabulary}


def dense_vector_clause(vector: Sequence[float], k: int, ef_search: int | None = None) -> dict[str, Any]:
    knn: dict[str, Any] = {"vector": list(vector), "k": k}
    if ef_search is not None:
        knn["method_parameters"] = {"ef_search": ef_search}
    return {"knn": {DENSE_FIELD: knn}}


def hybrid_query(clauses: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """A hybrid query over the given components, in sub-query order."""
    unknown = set(clauses) - set(COMPONENTS)
    if unknown or not clauses:
        raise ValueError(
            f"components must be a non-empty subset of {tuple(COMPONENTS)}, got {sorted(clauses)}"
        )
    return {"hybrid": {"queries": [clauses[name] for name in COMPONENTS if name in clauses]}}


def text_search_body(text: str, size: int) -> dict[str, Any]:
    """The documented direct search (docs/clients/curl.md): the plain-text hybrid query, ``size`` hits,
    stored vectors left out."""
    return {"size": size, "query": text_hybrid_query(text), "_source": {"excludes": list(VECTOR_FIELDS)}}


def plain_search_body(text: str, size: int) -> dict[str, Any]:
    """A clinical pipeline's request: the question alone (the pipeline writes the hybrid query)."""
    return {"size": size, "query": {"match": {"text": text}}, "_source": {"excludes": list(VECTOR_FIELDS)}}


def text_hybrid_query(text: str, k: int = 100, pagination_depth: int | None = None) -> dict[str, Any]:
    """The plain-text hybrid query a client sends: each shipped component (the three the named
    pipelines fuse) by query text alone (the search pipeline's neural_query_enricher supplies the model
    ids); ``pagination_depth`` as the documented explicit query sets it (None: not sent, OpenSearch
    fuses from the page's own depth)."""
    query = hybrid_query(component_clauses(COMPONENT_ORDER, ClauseInput(text, k), by="text"))
    if pagination_depth is not None:
        query["hybrid"]["pagination_depth"] = pagination_depth
    return query


def named_clause(component: str, clause: dict[str, Any]) -> dict[str, Any]:
    """The component's clause named after it, so OpenSearch reports its score per hit (matched_queries
    with include_named_queries_score): its record's ``named``. May name ``clause`` in place."""
    return component_named(component).named(clause, component)


def component_named(name: str) -> RetrievalComponent:
    """The component of that name, or a ValueError naming the known ones."""
    try:
        return COMPONENTS[name]
    except KeyError:
        raise ValueError(f"unknown component {name!r}; expected one of {tuple(COMPONENTS)}") from None


def component_clauses(
    components: Sequence[str], made_from: ClauseInput, *, by: Literal["text", "encoding"]
) -> dict[str, dict[str, Any]]:
    """Each named component's clause, by text (OpenSearch encodes it) or by the query side's encoding."""
    clauses: dict[str, dict[str, Any]] = {}
    for name in components:
        component = component_named(name)
        clauses[name] = (component.by_text if by == "text" else component.by_encoding)(made_from)
    return clauses


def product_text_hybrid(
    text: str,
    depth: int,
    filters: Sequence[Mapping[str, Any]] = (),
    ef_search: int | None = None,
    bm25_fields: Mapping[str, float] = BM25_FIELD_BOOSTS,
    semantic_text: str | None = None,
) -> dict[str, Any]:
    """The product's hybrid query by query text, as the clinical search pipelines build it for a client:
    ``product_hybrid`` over every component's clause by text (ml-commons encodes it: the pipeline's
    neural_query_enricher names the models), so the pipelines send what /v1/search sends with vectors.
    ``semantic_text``: what the sparse and dense sub-queries search with (the clinical topic; default
    ``text``); BM25 always takes ``text``."""
    made_from = ClauseInput(text, depth, semantic_text, bm25_fields)
    clauses = component_clauses(tuple(COMPONENTS), made_from, by="text")
    restriction = {"bool": {"filter": [dict(f) for f in filters]}} if filters else None
    return {"hybrid": product_hybrid(text, clauses, depth, restriction, ef_search=ef_search)}


def product_hybrid(
    question: str,
    clauses: Mapping[str, dict[str, Any]],
    depth: int,
    filters: Mapping[str, Any] | None = None,
    *,
    ef_search: int | None = None,
    sparse_ann: bool = False,
    filter_on_hybrid: bool = True,
) -> dict[str, Any]:
    """The body of the product's ``hybrid`` query from each component's clause (by text or by vector):
    the one builder of /v1/search and of the clinical pipelines. The dense clause visits at least
    ``depth`` candidates (``ef_search`` raised to it); ``filters`` restrict the hybrid query and sit
    inside the dense clause (and a SEISMIC sparse clause: ``sparse_ann``), so their k best are found
    *within* them, not cut from k found over everything. Sub-queries are named after their component
    (``named_clause``), in sub-query order, each lifting the records ``question`` names
    (control_plane/query/named_records.py). ``filter_on_hybrid`` False (a node before 3.0, whose hybrid
    query has no ``filter``): each sub-query carries the filters itself, which selects the same chunks.
    Fills ``clauses`` in place."""
    restriction = Restriction(depth, filters, ef_search, sparse_ann)
    for name, clause in clauses.items():
        component_named(name).restrict(clause, restriction)
    named = identifier_phrases(question)
    queries = [
        with_named_records(named_clause(name, clauses[name]), named) for name in COMPONENTS if name in clauses
    ]
    if filters is None:
        return {"queries": queries, "pagination_depth": depth}
    if not filter_on_hybrid:
        return {"queries": filtered_sub_queries(queries, filters), "pagination_depth": depth}
    return {"queries": queries, "filter": filters, "pagination_depth": depth}


def filtered_sub_queries(
    queries: Sequence[dict[str, Any]], filters: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Each hybrid sub-query restricted by ``filters`` itself: for a node whose hybrid query has no
    ``filter`` (OpenSearch 2.19). The sub-query keeps its name (it sits unchanged in ``must``)."""
    return [{"bool": {"must": [query], "filter": [filters]}} for query in queries]


def restrict_hybrid(
    hybrid: dict[str, Any], neural: dict[str, Any], filters: Sequence[Mapping[str, Any]]
) -> None:
    """``filters`` on a hybrid query (its ``filter``: OpenSearch 3.0+) and inside its ``neural`` clause,
    so k neighbours are found *within* them, not cut from k found over everything. In place."""
    neural["filter"] = {"bool": {"filter": [dict(f) for f in filters]}}
    hybrid["filter"] = {"bool": {"filter": [dict(f) for f in filters]}}


# -- the three components -------------------------------------------------------------------------


def _bm25(made_from: ClauseInput) -> Clause:
    return bm25_clause(made_from.text, made_from.bm25_fields)


def _name_bm25(clause: Clause, name: str) -> Clause:
    clause["multi_match"]["_name"] = name
    return clause


def _splade_by_text(made_from: ClauseInput) -> Clause:
    return sparse_text_clause(made_from.semantic)


def _splade_by_encoding(made_from: ClauseInput) -> Clause:
    """Pre-encoded term weights, else the text for a doc-only tokenizer model."""
    encodings, ann = made_from.encodings, made_from.sparse_ann
    if encodings.sparse_tokens is not None:
        return sparse_tokens_clause(encodings.sparse_tokens, ann)
    if encodings.sparse_model_id is not None:
        return sparse_text_clause(made_from.semantic, encodings.sparse_model_id, ann)
    raise ValueError("the splade component needs query tokens or a doc-only tokenizer model id")


def _name_splade(clause: Clause, name: str) -> Clause:
    clause["neural_sparse"][SPARSE_FIELD]["_name"] = name
    return clause


def _restrict_splade(clause: Clause, restriction: Restriction) -> None:
    """A SEISMIC clause finds its k best within the filters (a rank_features one is filtered by the
    hybrid query's filter)."""
    if restriction.sparse_ann and restriction.filters is not None:
        clause["neural_sparse"][SPARSE_FIELD]["method_parameters"]["filter"] = restriction.filters


def _dense_by_text(made_from: ClauseInput) -> Clause:
    return dense_text_clause(made_from.semantic, made_from.depth)


def _dense_by_encoding(made_from: ClauseInput) -> Clause:
    if made_from.encodings.dense_vector is None:
        raise ValueError("the dense component needs a query vector")
    return dense_vector_clause(made_from.encodings.dense_vector, made_from.depth)


def _name_dense(clause: Clause, name: str) -> Clause:
    """Wrapped in a named bool: inside a hybrid query OpenSearch 3.6 drops a `_name` set on a knn or
    neural query."""
    return {"bool": {"must": [clause], "_name": name}}


def _restrict_dense(clause: Clause, restriction: Restriction) -> None:
    """The k-NN clause visits at least the candidate depth and finds its k best within the filters."""
    dense: dict[str, Any] = next(iter(clause.values()))[DENSE_FIELD]  # knn or neural
    if restriction.ef_search is not None:
        dense["method_parameters"] = {"ef_search": max(restriction.ef_search, restriction.depth)}
    if restriction.filters is not None:
        dense["filter"] = restriction.filters


BM25 = RetrievalComponent("bm25", None, _bm25, _bm25, _name_bm25)
SPLADE = RetrievalComponent(
    "splade", "sparse", _splade_by_text, _splade_by_encoding, _name_splade, _restrict_splade
)
DENSE = RetrievalComponent("dense", "dense", _dense_by_text, _dense_by_encoding, _name_dense, _restrict_dense)
COMPONENTS: dict[str, RetrievalComponent] = {c.name: c for c in (BM25, SPLADE, DENSE)}
"""Every retrieval component, in hybrid sub-query order. Read when a query is built (a test may add
one for the length of the test)."""
COMPONENT_ORDER: tuple[str, ...] = tuple(COMPONENTS)
"""The shipped components' names in sub-query order."""
