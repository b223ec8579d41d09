"""One form per record: the same trial as XML and as JSON is ingested once, in its most complete form
(issue 15, item 4.6)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from control_plane.ingestion import run
from control_plane.ingestion.assembly import SectionDraft, assemble_document
from control_plane.ingestion.bulk import BatchResult, DeadLetterFile, PreparedBatch
from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.documents import Document
from control_plane.ingestion.encode import PipelineChunkEncoder
from control_plane.ingestion.parsers import (
    completeness,
    dataset_files,
    most_complete_forms,
    parse_documents,
    unique_documents,
)
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.tokens import RegexTokenCounter


def _form(doc_id: str, paragraphs: Sequence[str], file: str) -> Document:
    return assemble_document(
        doc_id=doc_id,
        title="A trial",
        source="ctgov",
        doc_type="clinical_trial",
        url=None,
        publication_date=None,
        sections=[SectionDraft("Brief Summary", "summary", ("Brief Summary",), tuple(paragraphs))],
        metadata={"file": file},
    )


def test_completeness_orders_tables_then_sections_then_words() -> None:
    short, longer = _form("N", ["one two"], "a.xml"), _form("N", ["one two three"], "b.json")
    assert completeness(short) < completeness(longer)
    # list markers and line layout are not words
    assert completeness(_form("N", ["- one", "- two"], "c.xml"))[2] == completeness(short)[2]
    kept = unique_documents([short, _form("M", ["x"], "m.xml"), longer, _form("N", ["a b c"], "d.xml")])
    assert [(d.doc_id, d.metadata["file"]) for d in kept] == [("N", "b.json"), ("M", "m.xml")]


def test_duplicates_in_the_real_registry_files(datasets: Path) -> None:
    files = dataset_files("ctgov", datasets)
    forms = most_complete_forms(files)
    assert set(forms) == {"NCT00023673", "NCT02028676", "NCT02552212", "NCT00081588"}
    assert most_complete_forms(dataset_files("pmc", datasets)) == {}
    documents = list(parse_documents(files))
    kept = unique_documents(documents)
    assert len(documents) == 76 and len(kept) == 72
    chosen = {d.doc_id: d.metadata["file"] for d in kept}
    # NCT00023673: the classic JSON lists each arm's interventions, which the XML lacks (more words);
    # NCT02028676: the XML has the adverse-event totals and ages the JSON lacks (more words)
    assert chosen["NCT00023673"] == "NCT00023673.json"
    assert chosen["NCT02028676"] == "NCT02028676.xml"
    # identical forms in two files: the first in file order
    assert chosen["NCT02552212"] == "NCT02278341.json"
    assert chosen["NCT00081588"] == "NCT00081588.xml"
    for document in kept:
        assert completeness(document) == forms.get(document.doc_id, completeness(document))


class _Indices:
    def exists(self, index: str) -> bool:
        return True

    def refresh(self, index: str) -> None:
        return None

    def flush(self, index: str) -> None:
        return None


class _Client:
    indices = _Indices()


def test_ingest_keeps_the_most_complete_form(
    datasets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[Chunk] = []

    def prepare_batch(client: Any, index: str, chunks: Sequence[Chunk], encode: Any) -> PreparedBatch:
        written.extend(chunks)
        return PreparedBatch(index, [c.to_dict() for c in chunks], [], 0)

    def write_batch(client: Any, prepared: PreparedBatch, **_: Any) -> BatchResult:
        return BatchResult(written=len(prepared.documents))

    monkeypatch.setattr(run, "prepare_batch", prepare_batch)
    monkeypatch.setattr(run, "write_batch", write_batch)
    counter = RegexTokenCounter()
    files = [
        datasets / "clinicaltrials" / "xml" / "NCT00023673.xml",
        datasets / "clinicaltrials" / "json" / "NCT00023673.json",
        datasets / "clinicaltrials" / "json" / "NCT02028676.json",
        datasets / "clinicaltrials" / "xml" / "NCT02028676.xml",
    ]
    options = IngestOptions(index="i", progress=False, batch_chunks=10_000)
    summary = ingest(
        _Client(),  # type: ignore[arg-type]
        files,
        options,
        PipelineChunkEncoder(),
        DeadLetterFile(tmp_path / "dl.jsonl"),
        counter,
    )
    assert (summary.documents, summary.duplicates) == (2, 2)
    expected = [
        c
        for path in (files[1], files[3])
        for document in parse_documents(path)
        for c in chunk(document, "sentence", counter=counter)
    ]
    assert [c.content_hash for c in written] == [c.content_hash for c in expected]


def test_a_skipped_duplicate_says_which_form_was_kept_and_why() -> None:
    short = _form("NCT1", ["one two"], "a.xml")
    long = _form("NCT1", ["one two three four"], "a.json")
    best = completeness(long)
    note = run.duplicate_note(short, best)
    assert note["doc_id"] == "NCT1" and "more complete form" in note["why"]
    assert note["skipped_form"]["words"] < note["kept_form"]["words"] == best[2]
    assert "equally complete form was ingested first" in run.duplicate_note(long, best)["why"]
    assert "earlier in the sources" in run.duplicate_note(long, None)["why"]
    assert "kept_form" not in run.duplicate_note(long, None)
