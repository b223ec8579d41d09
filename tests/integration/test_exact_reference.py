"""The exact reference against OpenSearch itself, on a small index of NFCorpus text.

BM25 must equal OpenSearch's scores (the replica reads the index's own terms and statistics), SPLADE at
stored precision must equal ``neural_sparse``, exhaustive dense search must agree with the HNSW top 10,
and the Python fusion of OpenSearch's component lists must equal OpenSearch's hybrid pipelines.
Vectors and SPLADE weights are seeded random values: what is checked is the scoring, not the models.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest
from integration.chunks import chunk, index_chunks
from opensearchpy import OpenSearch

from benchmarks.exact_reference.measure import PIPELINE_FILES, inline_pipeline
from control_plane.config.settings import Settings
from control_plane.evaluation.exact import ChunkScores, ExactIndex, FusionParameters, fuse
from control_plane.evaluation.snapshot import BM25_FIELDS, IndexSnapshot, analyze, take_snapshot
from control_plane.query.components import (
    COMPONENT_ORDER,
    bm25_clause,
    dense_vector_clause,
    hybrid_query,
    sparse_tokens_clause,
)
from control_plane.testsets.catalog import load_test_set

pytestmark = pytest.mark.integration

DOCUMENTS = 150
DEPTH = 50
TOKENS = [f"tok{i}" for i in range(40)] + ["##s", "cancer"]


@pytest.fixture(scope="module")
def rng_seed() -> int:
    return 20240601


@pytest.fixture
def reference(
    client: OpenSearch, chunk_index: str, settings: Settings, rng_seed: int
) -> tuple[str, IndexSnapshot, ExactIndex]:
    rng = np.random.default_rng(rng_seed)
    dim = settings.index.knn.dimension
    documents = list(itertools.islice(load_test_set("nfcorpus/dev").corpus(), DOCUMENTS))
    chunks: list[dict[str, Any]] = []
    for i, document in enumerate(documents):
        vector = rng.normal(size=dim)
        tokens = rng.choice(len(TOKENS), size=8, replace=False)
        extra: dict[str, Any] = {}
        if i % 7 == 0:  # some chunks carry table lines and facets, so best_fields has fields to pick from
            extra["table_lines"] = [document.title, document.text[:200]]
            extra["facet_json"] = json.dumps({"title": document.title})
        chunks.append(
            chunk(
                document.doc_id,
                document.text,
                title_path=f"{document.title} › Abstract",
                dimension=dim,
                vector=(vector / np.linalg.norm(vector)).tolist(),
                sparse={TOKENS[t]: float(w) for t, w in zip(tokens, rng.uniform(0.01, 3.0, 8), strict=True)},
                **extra,
            )
        )
    index_chunks(client, chunk_index, chunks)
    snapshot = take_snapshot(client, chunk_index)
    return chunk_index, snapshot, ExactIndex(snapshot)


def _search(client: OpenSearch, index: str, query: dict[str, Any], size: int, **body: Any) -> ChunkScores:
    answer = client.search(index=index, body={"size": size, "_source": False, "query": query, **body})
    return {hit["_id"]: float(hit["_score"]) for hit in answer["hits"]["hits"]}


def _queries() -> list[str]:
    return [q.text for q in itertools.islice(load_test_set("nfcorpus/dev").queries(), 6)] + ["cancer risk"]


def test_snapshot_holds_what_the_index_scores_with(
    reference: tuple[str, IndexSnapshot, ExactIndex],
) -> None:
    _, snapshot, _ = reference
    assert len(snapshot.chunk_ids) == DOCUMENTS
    text, stats = snapshot.terms["text"], snapshot.statistics["text"]
    assert stats.doc_count == DOCUMENTS
    assert int(text.values.sum()) == stats.sum_total_term_freq  # lengths add up to Lucene's sumTotalTermFreq
    counted = np.bincount(text.term_ids, minlength=len(text.vocabulary))
    assert {t: int(counted[i]) for i, t in enumerate(text.vocabulary)} == dict(stats.doc_freq)
    assert snapshot.statistics["table_lines"].doc_count == len(range(0, DOCUMENTS, 7))
    assert np.allclose(np.linalg.norm(snapshot.embeddings, axis=1), 1.0, atol=1e-6)


def test_bm25_replica_equals_opensearch(
    client: OpenSearch, reference: tuple[str, IndexSnapshot, ExactIndex]
) -> None:
    index_name, _, exact = reference
    for text in _queries():
        terms = {field: analyze(client, index_name, field, text) for field in BM25_FIELDS}
        found = _search(client, index_name, bm25_clause(text), DEPTH)
        replica = exact.bm25(terms, DEPTH)
        assert found, text
        assert list(replica) == list(found), text
        assert max(abs(found[c] - replica[c]) for c in found) <= 1e-4, text


def test_sparse_at_stored_precision_equals_neural_sparse(
    client: OpenSearch, reference: tuple[str, IndexSnapshot, ExactIndex]
) -> None:
    index_name, _, exact = reference
    query = {"tok1": 1.3, "tok7": 0.7, "##s": 2.1, "cancer": 0.45}
    found = _search(client, index_name, sparse_tokens_clause(query), DEPTH)
    stored = exact.sparse(query, DEPTH, index_precision=True)
    assert list(stored) == list(found)
    assert all(found[c] == pytest.approx(stored[c], rel=1e-6) for c in found)
    # the exact weights score a little higher: rank_features truncates each to 9 significant bits
    full = exact.sparse(query, len(exact.chunk_ids))
    assert all(0 <= full[c] - found[c] <= 2**-8 * full[c] + 1e-6 for c in found)
    assert any(full[c] > found[c] * (1 + 1e-5) for c in found)


def test_exact_dense_top10_overlaps_the_index_top10(
    client: OpenSearch, reference: tuple[str, IndexSnapshot, ExactIndex], rng_seed: int
) -> None:
    index_name, snapshot, exact = reference
    rng = np.random.default_rng(rng_seed + 1)
    queries = snapshot.embeddings[:5] + rng.normal(scale=0.02, size=(5, snapshot.embeddings.shape[1]))
    for vector in queries.astype(np.float32):
        found = _search(client, index_name, dense_vector_clause(vector.tolist(), 10), 10)
        [truth] = exact.dense(vector, 10)
        assert len(found.keys() & truth.keys()) >= 9
        assert all(found[c] == pytest.approx(truth[c], abs=1e-5) for c in found.keys() & truth.keys())


def test_python_fusion_of_opensearch_lists_equals_its_pipelines(
    client: OpenSearch,
    reference: tuple[str, IndexSnapshot, ExactIndex],
    settings: Settings,
) -> None:
    index_name, snapshot, _ = reference
    parameters = FusionParameters(
        weights=dict(zip(COMPONENT_ORDER, settings.fusion.weights.in_order(), strict=True)),
        rank_constant=settings.fusion.rrf.rank_constant,
    )
    clauses = {
        "bm25": bm25_clause("cancer risk diet"),
        "splade": sparse_tokens_clause({"tok3": 1.0, "cancer": 0.5, "tok9": 2.0}),
        "dense": dense_vector_clause(snapshot.embeddings[3].tolist(), DEPTH),
    }
    lists = {name: _search(client, index_name, clause, DEPTH) for name, clause in clauses.items()}
    query = hybrid_query(clauses)
    query["hybrid"]["pagination_depth"] = DEPTH
    for name, method in (("hybrid-minmax", "weighted"), ("hybrid-rrf", "rrf")):
        pipeline = inline_pipeline(settings, PIPELINE_FILES[name])
        found = _search(client, index_name, query, 3 * DEPTH, search_pipeline=pipeline)
        replayed = fuse(method, lists, parameters)
        assert found.keys() == replayed.keys(), name
        assert all(found[c] == pytest.approx(replayed[c], abs=1e-6) for c in found), name
