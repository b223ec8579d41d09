"""One function per retrieval component, each returning an OpenSearch query clause.

Hybrid sub-query order is fixed (bm25, splade, dense) because the pipelines' weights are positional.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from control_plane.query.named_records import identifier_phrases, with_named_records

COMPONENT_ORDER: tuple[str, ...] = ("bm25", "splade", "dense")

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
    """A hybrid query over the given components, in COMPONENT_ORDER."""
    unknown = set(clauses) - set(COMPONENT_ORDER)
    if unknown or not clauses:
        raise ValueError(f"components must be a non-empty subset of {COMPONENT_ORDER}, got {sorted(clauses)}")
    return {"hybrid": {"queries": [clauses[name] for name in COMPONENT_ORDER if name in clauses]}}


def text_search_body(text: str, size: int) -> dict[str, Any]:
    """The documented direct search (docs/clients/curl.md): the plain-text hybrid query, ``size`` hits,
    stored vectors left out."""
    return {"size": size, "query": text_hybrid_query(text), "_source": {"excludes": list(VECTOR_FIELDS)}}


def plain_search_body(text: str, size: int) -> dict[str, Any]:
    """A clinical pipeline's request: the question alone (the pipeline writes the hybrid query)."""
    return {"size": size, "query": {"match": {"text": text}}, "_source": {"excludes": list(VECTOR_FIELDS)}}


def text_hybrid_query(text: str, k: int = 100, pagination_depth: int | None = None) -> dict[str, Any]:
    """The plain-text hybrid query a client sends: every component by query text alone (the search
    pipeline's neural_query_enricher supplies the model ids); ``pagination_depth`` as the documented
    explicit query sets it (None: not sent, OpenSearch fuses from the page's own depth)."""
    query = hybrid_query(
        {"bm25": bm25_clause(text), "splade": sparse_text_clause(text), "dense": dense_text_clause(text, k)}
    )
    if pagination_depth is not None:
        query["hybrid"]["pagination_depth"] = pagination_depth
    return query


def named_clause(component: str, clause: dict[str, Any]) -> dict[str, Any]:
    """The component's clause named after it, so OpenSearch reports its score per hit (matched_queries
    with include_named_queries_score). The dense clause is wrapped in a named bool: inside a hybrid
    query OpenSearch 3.6 drops a `_name` set on a knn or neural query. Names ``clause`` in place."""
    if component == "bm25":
        clause["multi_match"]["_name"] = component
    elif component == "splade":
        clause["neural_sparse"][SPARSE_FIELD]["_name"] = component
    elif component == "dense":
        return {"bool": {"must": [clause], "_name": component}}
    else:
        raise ValueError(f"unknown component {component!r}; expected one of {COMPONENT_ORDER}")
    return clause


def product_text_hybrid(
    text: str,
    depth: int,
    filters: Sequence[Mapping[str, Any]] = (),
    ef_search: int | None = None,
    bm25_fields: Mapping[str, float] = BM25_FIELD_BOOSTS,
    semantic_text: str | None = None,
) -> dict[str, Any]:
    """The product's hybrid query by query text, as the clinical search pipelines build it for a client:
    ``product_hybrid`` over the three clauses by text (ml-commons encodes it: the pipeline's
    neural_query_enricher names the models), so the pipelines send what /v1/search sends with vectors.
    ``semantic_text``: what the sparse and dense sub-queries search with (the clinical topic; default
    ``text``); BM25 always takes ``text``."""
    semantic = semantic_text or text
    clauses = {
        "bm25": bm25_clause(text, bm25_fields),
        "splade": sparse_text_clause(semantic),
        "dense": dense_text_clause(semantic, depth),
    }
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
    (``named_clause``), in COMPONENT_ORDER, each lifting the records ``question`` names
    (control_plane/query/named_records.py). ``filter_on_hybrid`` False (a node before 3.0, whose hybrid
    query has no ``filter``): each sub-query carries the filters itself, which selects the same chunks.
    Fills ``clauses`` in place."""
    if "dense" in clauses:
        dense: dict[str, Any] = next(iter(clauses["dense"].values()))[DENSE_FIELD]  # knn or neural
        if ef_search is not None:
            dense["method_parameters"] = {"ef_search": max(ef_search, depth)}
        if filters is not None:
            dense["filter"] = filters
    if "splade" in clauses and sparse_ann and filters is not None:
        clauses["splade"]["neural_sparse"][SPARSE_FIELD]["method_parameters"]["filter"] = filters
    named = identifier_phrases(question)
    queries = [
        with_named_records(named_clause(name, clauses[name]), named)
        for name in COMPONENT_ORDER
        if name in clauses
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
