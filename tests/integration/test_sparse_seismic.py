"""index.sparse.method seismic on the real node: the sparse-index benchmark's SEISMIC copy of a small
chunk index (real SPLADE terms of a few dozen NFCorpus abstracts) is created from the rendered template
and answers a splade query, exactly and approximately."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from integration.chunks import chunk, index_chunks
from opensearchpy import OpenSearch

from benchmarks.sparse_index.variants import build_variant, method_settings, variant_name
from control_plane.config.settings import Settings
from control_plane.models.sparse import SparseEncoder, token_id_vocabulary
from control_plane.query.components import SparseAnn, sparse_tokens_clause, token_id_weights
from control_plane.testsets.catalog import load_test_set

pytestmark = pytest.mark.integration

DOCUMENTS = 36


@pytest.fixture(scope="module")
def encoder() -> SparseEncoder:
    return SparseEncoder.load()


@pytest.fixture
def seismic_copy(
    client: OpenSearch, chunk_index: str, applied: Settings, encoder: SparseEncoder
) -> Iterator[tuple[str, str, list[dict[str, Any]]]]:
    documents = list(itertools.islice(load_test_set("nfcorpus/dev").corpus(), DOCUMENTS))
    terms = encoder.encode([d.text for d in documents])
    dim = applied.index.knn.dimension
    chunks = [
        chunk(d.doc_id, d.text, dimension=dim, vector=[1.0], sparse=t)
        for d, t in zip(documents, terms, strict=True)
    ]
    index_chunks(client, chunk_index, chunks)
    # a threshold below the copy's size, so the one segment is clustered and searched approximately
    settings = method_settings(applied, "seismic", {"approximate_threshold": 10, "n_postings": 20})
    name = variant_name("seismic", chunk_index)
    try:
        variant = build_variant(client, settings, chunk_index, token_id_vocabulary(applied.models.sparse))
        assert variant.name == name and variant.documents == DOCUMENTS and variant.segments == 1
        yield chunk_index, name, chunks
    finally:
        client.indices.delete(index=name, ignore_unavailable=True)


def test_the_copy_is_a_seismic_sparse_vector_index(
    client: OpenSearch, seismic_copy: tuple[str, str, list[dict[str, Any]]]
) -> None:
    _, name, _ = seismic_copy
    mapping = client.indices.get_mapping(index=name)[name]["mappings"]["properties"]["sparse_terms"]
    assert mapping["type"] == "sparse_vector"
    assert mapping["method"]["name"] == "seismic"
    assert mapping["method"]["parameters"]["approximate_threshold"] == 10
    index_settings = client.indices.get_settings(index=name)[name]["settings"]["index"]
    assert index_settings["sparse"] == "true"
    stored = client.get(index=name, id=seismic_copy[2][0]["chunk_id"])["_source"]["sparse_terms"]
    assert stored and all(key.isdigit() for key in stored)


def test_a_splade_query_finds_the_chunk_it_was_taken_from(
    client: OpenSearch,
    seismic_copy: tuple[str, str, list[dict[str, Any]]],
    applied: Settings,
    encoder: SparseEncoder,
) -> None:
    source, name, chunks = seismic_copy
    vocabulary = token_id_vocabulary(applied.models.sparse)
    target = chunks[5]
    [words] = encoder.encode([target["text"][:300]])
    ann = SparseAnn(top_n=10, heap_factor=1.0, k=10)
    for index, clause in (
        (source, sparse_tokens_clause(words)),
        (name, sparse_tokens_clause(token_id_weights(words, vocabulary), ann)),
    ):
        hits = client.search(index=index, body={"size": 10, "query": clause})["hits"]["hits"]
        assert hits, index
        assert hits[0]["_id"] == target["chunk_id"], index
        assert len(hits) <= 10
