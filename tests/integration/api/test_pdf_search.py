"""PDF sources end to end: PDFs typeset from PMC articles (tests/pdf_samples.py) are ingested by the
project's ingest (real models) into tenant A's indices, found through /v1/search with the pages and line
boxes they were read from; a corrupt and an encrypted PDF land in the dead-letter file with the reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from integration.api.stack import ApiStack, headers
from opensearchpy import OpenSearch
from pdf_samples import TypesetPdf, corrupt_pdf, encrypted_pdf, single_column_pdf, two_column_pdf

from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.parsers import parse_documents
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.setup import python_encoder

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class PdfIngest:
    index: str
    typeset: dict[str, TypesetPdf]
    summary: IngestSummary
    dead_letter: Path


@pytest.fixture(scope="module")
def pdf_ingest(
    stack: ApiStack, client: OpenSearch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PdfIngest]:
    folder = tmp_path_factory.mktemp("pdf-sources")
    articles = {document.doc_id: document for document in parse_documents("pmc")}
    typeset = [
        single_column_pdf(articles["PMC1790863"], folder / "single-column.pdf"),
        two_column_pdf(articles["PMC2329613"], folder / "two-column.pdf"),
    ]
    corrupt_pdf(folder / "corrupt.pdf")
    encrypted_pdf(folder / "encrypted.pdf")
    index = f"{stack.prefix}-a-pdf"  # in the API's index pattern; tenant A's chunks
    encoder, counter = python_encoder(stack.settings)
    dead_letter = tmp_path_factory.mktemp("pdf-dead-letter") / "dead-letter.jsonl"
    options = IngestOptions(index=index, tenant_id="tenant-a", strategy="section", progress=False)
    summary = ingest(client, [folder], options, encoder, DeadLetterFile(dead_letter), counter)
    try:
        yield PdfIngest(index, {t.path.stem: t for t in typeset}, summary, dead_letter)
    finally:
        client.indices.delete(index=index, ignore_unavailable=True)


def _search(stack: ApiStack, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = stack.client().post("/v1/search", json=body, headers=headers("a-search"))
    assert response.status_code == 200, response.get_data(as_text=True)
    results: list[dict[str, Any]] = response.get_json()["results"]
    return results


def test_the_pdfs_are_indexed_and_the_bad_ones_dead_lettered(
    pdf_ingest: PdfIngest, client: OpenSearch
) -> None:
    summary = pdf_ingest.summary
    assert (summary.documents, summary.parse_errors, summary.index_failures) == (2, 2, 0)
    assert summary.written == summary.chunks > 10
    records = [json.loads(line) for line in pdf_ingest.dead_letter.read_text(encoding="utf-8").splitlines()]
    reasons = {Path(record["path"]).name: (record["stage"], record["reason"]) for record in records}
    assert reasons["encrypted.pdf"] == ("parse", "encrypted: a password is needed to open it")
    assert reasons["corrupt.pdf"][0] == "parse"
    assert reasons["corrupt.pdf"][1].startswith("not a readable PDF: ")
    mapping = client.indices.get_mapping(index=pdf_ingest.index)[pdf_ingest.index]["mappings"]
    assert mapping["properties"]["layout"] == {"type": "object", "enabled": False}


def test_search_finds_pdf_text_with_its_pages_and_boxes(stack: ApiStack, pdf_ingest: PdfIngest) -> None:
    typeset = pdf_ingest.typeset["two-column"]
    section = typeset.sections[2]  # typeset in the right column of page 1 or on page 2
    paragraph = section.paragraphs[0]
    query = " ".join(paragraph.split()[:14])
    results = _search(stack, {"query": query, "size": 5, "boosts": False, "filters": {"source": ["pdf"]}})
    assert results and all(r["source"] == "pdf" for r in results)
    best = results[0]
    # The section may be cut into parts under the token budget: its first part holds the query's words.
    assert best["doc_id"] == "two-column" and best["text"].startswith(query)
    assert best["title_path"].endswith(section.heading)
    layout = best["layout"]
    assert layout["pages"] == sorted({box["page"] for box in layout["boxes"]})
    # The boxes hold the glyphs of the paragraph's first words, on the pages they name.
    with pdfplumber.open(typeset.path) as pdf:
        inside = "".join(
            char["text"]
            for box in layout["boxes"]
            for char in pdf.pages[box["page"] - 1].chars
            if box["x0"] <= (char["x0"] + char["x1"]) / 2 <= box["x1"]
            and box["top"] <= (char["top"] + char["bottom"]) / 2 <= box["bottom"]
        )
    assert "".join(query.split()) in "".join(inside.split())


def test_a_table_row_is_found_with_the_table_whole(stack: ApiStack, pdf_ingest: PdfIngest) -> None:
    (table,) = pdf_ingest.typeset["two-column"].tables
    results = _search(
        stack,
        {
            "query": "Functional limitation Physical discomfort mean item score",
            "size": 10,
            "boosts": False,
            "filters": {"source": ["pdf"]},
        },
    )
    (found,) = [r for r in results if r["is_table"]]
    assert found["text"].splitlines()[1:] == list(table.row_lines)
    assert len(found["layout"]["boxes"]) >= len(table.row_lines) + 1  # caption line(s) and one per row


def test_chunks_of_other_sources_have_no_layout(stack: ApiStack, pdf_ingest: PdfIngest) -> None:
    results = _search(stack, {"query": "oral health impact profile", "size": 20, "boosts": False})
    by_source = {r["source"]: r for r in results}
    assert "pdf" in by_source and by_source["pdf"]["layout"] is not None
    others = [r for r in results if r["source"] != "pdf"]
    assert others and all(r["layout"] is None for r in others)
