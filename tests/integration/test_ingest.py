"""Ingestion end to end against the real node with the real models (Python encoding path)."""

import dataclasses
import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from integration.chunks import refreshed_count, uncommitted_operations
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.ingestion.bulk import DeadLetterFile, index_batch
from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.parsers import parse_documents
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder
from control_plane.query.components import (
    bm25_clause,
    dense_vector_clause,
    hybrid_query,
    sparse_tokens_clause,
)

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def encoding(settings: Settings) -> tuple[ModelChunkEncoder, HuggingFaceTokenCounter]:
    """The ingest CLI's encoder (behind the session's encoding cache) and token counter."""
    return python_encoder(settings)


@pytest.fixture(scope="module")
def encoder(encoding: tuple[ModelChunkEncoder, HuggingFaceTokenCounter]) -> ModelChunkEncoder:
    return encoding[0]


@pytest.fixture(scope="module")
def counter(encoding: tuple[ModelChunkEncoder, HuggingFaceTokenCounter]) -> HuggingFaceTokenCounter:
    return encoding[1]


@pytest.fixture
def index(client: OpenSearch, applied: Settings) -> Iterator[str]:
    name = session_index("ingest")
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def test_pmc_ingest_is_idempotent_and_resumable(
    client: OpenSearch,
    index: str,
    encoder: ModelChunkEncoder,
    counter: HuggingFaceTokenCounter,
    tmp_path: Path,
) -> None:
    options = IngestOptions(index=index, strategy="section", progress=False)
    first = ingest(client, ["pmc"], options, encoder, DeadLetterFile(tmp_path / "dl.jsonl"), counter)
    assert first.documents == 8 and first.parse_errors == first.index_failures == 0
    assert first.written == first.chunks == refreshed_count(client, index)
    # Committed, not only refreshed: a node killed now restarts without replaying (ingestion/commit.py).
    assert uncommitted_operations(client, index) == 0
    assert first.encode_s > 0 and first.index_s > 0 and first.parse_s > 0
    # The producer's stages add up to the run; the writer's bulk time overlaps them.
    producer = first.parse_s + first.encode_s + first.lookup_s + first.write_wait_s
    assert producer == pytest.approx(first.seconds) and first.lookup_s > 0
    second = ingest(client, ["pmc"], options, encoder, DeadLetterFile(tmp_path / "dl.jsonl"), counter)
    assert (second.written, second.unchanged, second.deleted) == (0, first.chunks, 0)
    assert refreshed_count(client, index) == first.chunks
    ids = [
        h["_id"] for h in client.search(index=index, body={"size": 10000, "_source": False})["hits"]["hits"]
    ]
    assert len(ids) == len(set(ids)) == first.chunks


def test_tables_index_whole_and_searchable(
    client: OpenSearch,
    index: str,
    encoder: ModelChunkEncoder,
    counter: HuggingFaceTokenCounter,
    tmp_path: Path,
) -> None:
    ingest(
        client,
        ["pmc"],
        IngestOptions(index=index, progress=False),
        encoder,
        DeadLetterFile(tmp_path / "dl.jsonl"),
        counter,
    )
    tables = client.search(index=index, body={"size": 100, "query": {"term": {"is_table": True}}})["hits"][
        "hits"
    ]
    assert len(tables) == 21
    assert all(t["_source"]["table_lines"] for t in tables)


def test_shrunk_document_loses_its_extra_chunks(
    client: OpenSearch, index: str, encoder: ModelChunkEncoder, counter: HuggingFaceTokenCounter
) -> None:
    document = next(parse_documents("pmc"))
    chunks = chunk(document, "sentence", token_budget=64, counter=counter)
    assert len(chunks) > 3
    assert index_batch(client, index, chunks, encoder).written == len(chunks)
    shrunk = index_batch(client, index, chunks[:2], encoder)
    assert (shrunk.written, shrunk.unchanged, shrunk.deleted) == (0, 2, len(chunks) - 2)
    assert refreshed_count(client, index) == 2


def test_bad_records_are_reported_and_the_good_ones_land(
    client: OpenSearch,
    index: str,
    encoder: ModelChunkEncoder,
    counter: HuggingFaceTokenCounter,
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "mini" / "corpus.jsonl"
    corpus.parent.mkdir()
    corpus.write_text(
        json.dumps({"_id": "good-1", "title": "Aspirin", "text": "Aspirin lowers the risk of stroke."})
        + "\n"
        + '{"_id": "broken", "title": \n'
        + json.dumps({"_id": "good-2", "title": "Statins", "text": "Statins lower cholesterol."})
        + "\n"
    )
    dead = DeadLetterFile(tmp_path / "dead.jsonl")
    summary = ingest(client, [corpus], IngestOptions(index=index, progress=False), encoder, dead, counter)
    assert summary.documents == 2 and summary.parse_errors == 1
    [record] = [json.loads(line) for line in dead.path.read_text().splitlines()]
    assert record["stage"] == "parse" and record["path"] == str(corpus) and "2" in record["location"]
    # A chunk OpenSearch rejects (a malformed date) is reported; the rest of its batch lands.
    chunks = [
        c
        for d in itertools.islice(parse_documents("nfcorpus"), 3)
        for c in chunk(d, "section", counter=counter)
    ]
    bad = dataclasses.replace(chunks[1], publication_date="not-a-date", content_hash="x")
    result = index_batch(client, index, [chunks[0], bad, *chunks[2:]], encoder)
    assert [f.chunk_id for f in result.failures] == [bad.chunk_id]
    assert "publication_date" in result.failures[0].reason
    assert result.written == len(chunks) - 1


def test_indexed_chunks_are_searchable_by_every_component(
    client: OpenSearch,
    index: str,
    encoder: ModelChunkEncoder,
    counter: HuggingFaceTokenCounter,
    tmp_path: Path,
) -> None:
    ingest(
        client,
        ["ctgov"],
        IngestOptions(index=index, progress=False),
        encoder,
        DeadLetterFile(tmp_path / "dl.jsonl"),
        counter,
    )
    query = "inclusion criteria age 18 years"
    vector = encoder.dense.encode([query])[0].tolist()
    tokens = encoder.sparse.encode([query])[0]
    clauses = {
        "bm25": bm25_clause(query),
        "splade": sparse_tokens_clause(tokens),
        "dense": dense_vector_clause(vector, k=20),
    }
    for pipeline in ("hybrid-rrf", "hybrid-minmax"):
        hits = client.search(
            index=index,
            params={"search_pipeline": pipeline},
            body={"size": 10, "query": hybrid_query(clauses)},
        )["hits"]["hits"]
        assert len(hits) == 10
        assert sum(h["_source"]["intent_hint"] == "eligibility" for h in hits) >= 5, pipeline


def test_length_sorted_batches_keep_chunk_order_and_vectors(counter: HuggingFaceTokenCounter) -> None:
    encoder = ModelChunkEncoder(DenseEncoder.load(), SparseEncoder.load())  # no cache: batch vs alone
    chunks = chunk(next(parse_documents("pmc")), "sentence", token_budget=96, counter=counter)[:40]
    documents = encoder(chunks)
    assert [d["chunk_id"] for d in documents] == [c.chunk_id for c in chunks]
    for c, d in list(zip(chunks, documents, strict=True))[::7]:
        alone = encoder.dense.encode([c.text])[0]
        assert float(np.dot(alone, d["embedding"])) > 0.9999, c.chunk_id
        assert d["sparse_terms"].keys() == encoder.sparse.encode([c.text])[0].keys()
