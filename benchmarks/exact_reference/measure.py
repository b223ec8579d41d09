"""Measuring for the exact reference: query encodings, OpenSearch's chunk lists (plain requests,
hybrid pipelines inline) and the exact reference's lists over a snapshot of the same index."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from opensearchpy import OpenSearch

from benchmarks.exact_reference.figures import KNN_RECALL_K, Lists, Options
from control_plane.config.settings import Settings
from control_plane.evaluation.exact import ChunkScores, EncodedQuery, ExactIndex, exact_components
from control_plane.evaluation.snapshot import BM25_FIELDS, analyze
from control_plane.locations import RESOURCES_DIR
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder
from control_plane.query.components import (
    DENSE_FIELD,
    bm25_clause,
    dense_vector_clause,
    hybrid_query,
    sparse_tokens_clause,
)
from control_plane.resilience.retry import retry_search
from control_plane.resources.catalog import render_params
from control_plane.resources.render import render
from control_plane.testsets.catalog import Query

EF_SEARCH_SWEEP = (200, 400)  # also measured: what a larger HNSW candidate list would buy
PIPELINE_FILES = {"hybrid-minmax": "hybrid-minmax.json", "hybrid-rrf": "hybrid-rrf.json"}


def measure_lists(
    client: OpenSearch,
    options: Options,
    index: ExactIndex,
    encoded: Sequence[EncodedQuery],
    pipelines: Mapping[str, dict[str, Any]],
) -> Lists:
    """Every chunk list the figures compare, for every encoded query."""
    return Lists(
        opensearch={q.query_id: opensearch_lists(client, options, q, pipelines) for q in encoded},
        exact=exact_components(index, encoded, options.candidate_depth),
        stored=exact_components(index, encoded, options.candidate_depth, index_precision=True),
        exact_knn={q.query_id: index.dense(q.dense, KNN_RECALL_K)[0] for q in encoded},
        knn_by_ef_search={
            ef: {q.query_id: knn_list(client, options.index, q, ef) for q in encoded}
            for ef in EF_SEARCH_SWEEP
        },
    )


def encode_queries(
    client: OpenSearch, index: str, queries: Sequence[Query], settings: Settings
) -> list[EncodedQuery]:
    """The same encoders the inference service serves, and the index's own analyzer for BM25 terms."""
    texts = [q.text for q in queries]
    vectors = DenseEncoder.load(settings.models.dense).encode(texts)
    tokens = SparseEncoder.load(settings.models.sparse).encode(texts)
    return [
        EncodedQuery(
            query_id=q.query_id,
            text=q.text,
            terms={field: analyze(client, index, field, q.text) for field in BM25_FIELDS},
            sparse=tokens[i],
            dense=vectors[i],
        )
        for i, q in enumerate(queries)
    ]


def inline_pipeline(settings: Settings, file_name: str) -> dict[str, Any]:
    """A packaged search pipeline rendered with the settings, for a request's ``search_pipeline``."""
    path = RESOURCES_DIR / "search_pipelines" / file_name
    pipeline: dict[str, Any] = render(json.loads(path.read_text(encoding="utf-8")), render_params(settings))
    pipeline.pop("description", None)
    return pipeline


def opensearch_lists(
    client: OpenSearch, options: Options, query: EncodedQuery, pipelines: Mapping[str, dict[str, Any]]
) -> dict[str, ChunkScores]:
    """OpenSearch's chunk rankings for one query: each component alone at the candidate depth, the
    k-NN top 100 (for Recall@100), and each hybrid pipeline over all three components."""
    depth = options.candidate_depth
    clauses = {
        "bm25": bm25_clause(query.text),
        "splade": sparse_tokens_clause(query.sparse),
        "dense": dense_vector_clause(query.dense.tolist(), depth, options.ef_search),
    }
    lists = {name: _search(client, options.index, clause, depth) for name, clause in clauses.items()}
    lists["knn@100"] = knn_list(client, options.index, query, options.ef_search)
    hybrid = hybrid_query(clauses)
    hybrid["hybrid"]["pagination_depth"] = depth
    for name, pipeline in pipelines.items():
        lists[name] = _search(client, options.index, hybrid, depth * len(clauses), pipeline)
    return lists


def describe_knn(client: OpenSearch, index: str) -> str:
    """The HNSW settings that decide k-NN recall: method parameters, ef_search, segments."""
    mapping = next(iter(client.indices.get_mapping(index=index).values()))["mappings"]["properties"]
    method = mapping[DENSE_FIELD].get("method", {})
    settings = client.indices.get_settings(index=index, include_defaults=True, flat_settings=True)
    values = next(iter(settings.values()))
    ef_search = {**values.get("defaults", {}), **values["settings"]}.get("index.knn.algo_param.ef_search")
    segments = client.cat.segments(index=index, format="json")
    return (
        f"{method.get('engine')} {method.get('name')} {method.get('space_type')} "
        f"{json.dumps(method.get('parameters', {}))}; index.knn.algo_param.ef_search {ef_search} (the "
        f"lucene engine searches each segment with max(k, ef_search) candidates); {len(segments)} segments"
    )


def knn_list(client: OpenSearch, index: str, query: EncodedQuery, ef_search: int | None) -> ChunkScores:
    """The index's k-NN top 100 (k = 100) for the query vector."""
    clause = dense_vector_clause(query.dense.tolist(), KNN_RECALL_K, ef_search)
    return _search(client, index, clause, KNN_RECALL_K)


def _search(
    client: OpenSearch, index: str, query: dict[str, Any], size: int, pipeline: dict[str, Any] | None = None
) -> ChunkScores:
    body: dict[str, Any] = {"size": size, "_source": False, "query": query}
    if pipeline is not None:
        body["search_pipeline"] = pipeline
    answer = retry_search(lambda: client.search(index=index, body=body), what="exact reference")
    return {hit["_id"]: float(hit["_score"]) for hit in answer["hits"]["hits"]}
