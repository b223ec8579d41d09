"""plan_changes: what a re-ingest writes, skips and deletes (pure; chunks from real documents)."""

import dataclasses
import itertools

import pytest

from control_plane.ingestion.bulk import plan_changes
from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.parsers import parse_documents


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    documents = list(itertools.islice(parse_documents("nfcorpus"), 3))
    return [c for d in documents for c in chunk(d, "sentence", token_budget=48)]


def _stored(chunks: list[Chunk]) -> dict[str, dict[str, str]]:
    stored: dict[str, dict[str, str]] = {}
    for c in chunks:
        stored.setdefault(c.doc_id, {})[c.chunk_id] = c.content_hash
    return stored


def test_first_ingest_writes_everything(chunks: list[Chunk]) -> None:
    plan = plan_changes({}, chunks)
    assert plan.to_write == chunks
    assert plan.unchanged == plan.to_delete == []


def test_reingest_of_the_same_chunks_writes_nothing(chunks: list[Chunk]) -> None:
    plan = plan_changes(_stored(chunks), chunks)
    assert plan.to_write == [] and plan.to_delete == []
    assert plan.unchanged == [c.chunk_id for c in chunks]


def test_changed_chunk_is_rewritten_alone(chunks: list[Chunk]) -> None:
    changed = dataclasses.replace(chunks[1], content_hash="different")
    plan = plan_changes(_stored(chunks), [chunks[0], changed, *chunks[2:]])
    assert plan.to_write == [changed]
    assert len(plan.unchanged) == len(chunks) - 1


def test_document_that_shrank_loses_its_extra_chunks(chunks: list[Chunk]) -> None:
    doc_id = chunks[0].doc_id
    of_doc = [c for c in chunks if c.doc_id == doc_id]
    assert len(of_doc) > 1, "the fixture needs a document with several chunks"
    plan = plan_changes(_stored(chunks), of_doc[:1])
    assert plan.to_delete == sorted(c.chunk_id for c in of_doc[1:])
    assert plan.to_write == []


def test_other_documents_are_never_deleted(chunks: list[Chunk]) -> None:
    first_doc = [c for c in chunks if c.doc_id == chunks[0].doc_id]
    plan = plan_changes(_stored(chunks), first_doc)
    assert all(chunk_id.startswith(chunks[0].doc_id + ":") for chunk_id in plan.to_delete)
