from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from itertools import islice, pairwise
from pathlib import Path

import pytest

from control_plane.ingestion.assembly import SectionDraft, TableDraft, assemble_document
from control_plane.ingestion.chunking import STRATEGIES, TITLE_PATH_SEPARATOR, Chunk, chunk, content_hash
from control_plane.ingestion.documents import Document, Section
from control_plane.ingestion.parsers.beir import parse_beir
from control_plane.ingestion.parsers.medline import parse_medline
from control_plane.ingestion.tokens import HuggingFaceTokenCounter, RegexTokenCounter

BUDGET = 96
# The project's own strategies; the haystack-* ones run Haystack per section and have their own tests
# (test_haystack_chunking.py), on fewer documents.
CORE_STRATEGIES = [name for name in STRATEGIES if not name.startswith("haystack-")]


@pytest.fixture(scope="module")
def sample_documents(datasets: Path) -> list[Document]:
    """A slice of MEDLINE (structured abstracts included) and of NFCorpus."""
    medline = islice(parse_medline(datasets / "medline" / "pubmed21n1298.xml.gz"), 300)
    nfcorpus = islice(parse_beir(datasets / "nfcorpus" / "corpus.jsonl"), 300)
    return [*medline, *nfcorpus]


def _all_chunks(
    documents: list[Document], counter: HuggingFaceTokenCounter
) -> Iterator[tuple[Document, Chunk]]:
    for document in documents:
        for strategy in CORE_STRATEGIES:
            for item in chunk(document, strategy, token_budget=BUDGET, overlap_pct=25, counter=counter):
                yield document, item


def _section_of(document: Document, item: Chunk) -> Section:
    return next(s for s in document.sections if s.start <= item.start and item.end <= s.end)


@pytest.mark.parametrize("corpus", ["pmc_documents", "ctgov_documents", "sample_documents", "pdf_documents"])
def test_chunk_text_is_exactly_its_span(
    corpus: str, request: pytest.FixtureRequest, token_counter: HuggingFaceTokenCounter
) -> None:
    documents: list[Document] = request.getfixturevalue(corpus)
    checked = 0
    for document, item in _all_chunks(documents, token_counter):
        assert document.text[item.start : item.end] == item.text, (document.doc_id, item.chunk_id)
        assert item.text == item.text.strip() and item.text
        checked += 1
    assert checked > len(documents)


@pytest.mark.parametrize("strategy", ["section", "paragraph", "sentence"])
def test_token_budget_is_respected(
    strategy: str,
    pmc_documents: list[Document],
    ctgov_documents: list[Document],
    token_counter: HuggingFaceTokenCounter,
) -> None:
    sizes = []
    for document in [*pmc_documents, *ctgov_documents]:
        for item in chunk(document, strategy, token_budget=BUDGET, counter=token_counter):
            if item.is_table:
                continue
            measured = token_counter.count(item.text)
            assert measured <= BUDGET, (document.doc_id, item.chunk_id, measured)
            assert measured == item.token_count
            sizes.append(measured)
    assert max(sizes) > BUDGET * 0.9


def test_sections_under_budget_stay_whole(
    pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    document = pmc_documents[0]
    chunks = chunk(document, "section", token_budget=100_000, counter=token_counter)
    prose = [c for c in chunks if not c.is_table]
    assert [(c.start, c.end) for c in prose] == [(s.start, s.end) for s in document.sections]


def test_section_strategy_balances_what_sentence_strategy_packs_greedily(
    pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    compared = 0
    for document in pmc_documents:
        balanced = [
            c
            for c in chunk(document, "section", token_budget=BUDGET, counter=token_counter)
            if not c.is_table
        ]
        greedy = [
            c
            for c in chunk(document, "sentence", token_budget=BUDGET, counter=token_counter)
            if not c.is_table
        ]
        for section in document.sections:
            balanced_sizes = [c.token_count for c in balanced if _section_of(document, c) == section]
            greedy_sizes = [c.token_count for c in greedy if _section_of(document, c) == section]
            assert len(balanced_sizes) == len(greedy_sizes)
            assert max(balanced_sizes) <= max(greedy_sizes)
            compared += len(greedy_sizes) > 1 and min(balanced_sizes) > min(greedy_sizes)
    assert compared > 10


@pytest.mark.parametrize("overlap_pct", [0, 20, 50])
def test_sliding_windows_overlap_by_the_requested_percentage(
    overlap_pct: int, pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    window = 80
    target = round(window * overlap_pct / 100)
    deviations = []
    for document in pmc_documents:
        chunks = [
            c
            for c in chunk(document, "sliding_window", token_budget=window, overlap_pct=overlap_pct)
            if not c.is_table
        ]
        for previous, current in pairwise(chunks):
            if _section_of(document, previous) != _section_of(document, current):
                continue
            assert token_counter.count(previous.text) <= window
            shared = (
                token_counter.count(document.text[current.start : previous.end])
                if current.start < previous.end
                else 0
            )
            deviations.append(target - shared)
    assert deviations
    # Cuts fall between words, so a window may share up to one word less than asked, never more.
    assert all(0 <= d <= 8 for d in deviations), sorted(deviations)[-5:]
    assert sum(d == 0 for d in deviations) >= 0.8 * len(deviations)


def test_tables_are_one_chunk_each_with_every_row(
    datasets: Path, pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    for document in pmc_documents:
        root = ET.parse(datasets / "pmc" / document.metadata["file"]).getroot()
        row_counts = [len(list(wrap.iter("tr"))) for wrap in root.iter("table-wrap")]
        for strategy in CORE_STRATEGIES:
            tables = [
                c for c in chunk(document, strategy, token_budget=32, counter=token_counter) if c.is_table
            ]
            assert [len(c.table_lines) for c in tables] == row_counts
            for item, table in zip(tables, document.tables, strict=True):
                assert item.table_lines == table.row_lines
                assert item.table_html == table.html
                assert item.text.split("\n")[1:] == list(table.row_lines)
                assert item.text.startswith(f"{table.label}: {table.caption}")


def test_chunk_metadata(ctgov_documents: list[Document], token_counter: HuggingFaceTokenCounter) -> None:
    document = next(d for d in ctgov_documents if d.metadata["file"] == "NCT02210780.json")
    chunks = chunk(document, "section", tenant_id="acme", counter=token_counter)
    assert [c.chunk_id for c in chunks] == [f"NCT02210780:chunk:{i}" for i in range(len(chunks))]
    inclusion = next(c for c in chunks if c.section == "inclusion")
    expected_path = (document.title, "Eligibility", "Key Inclusion Criteria")
    assert inclusion.title_path == TITLE_PATH_SEPARATOR.join(expected_path)
    assert TITLE_PATH_SEPARATOR == " \N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK} "
    assert inclusion.section_label == "Key Inclusion Criteria"
    assert inclusion.intent_hint == "eligibility"
    assert json.loads(inclusion.facet_json or "{}")["sex"] == "All"
    assert inclusion.provenance == {
        "chunker": "control_plane.ingestion.chunking",
        "strategy": "section",
        "version": "2",
    }
    assert (inclusion.tenant_id, inclusion.source, inclusion.doc_type) == ("acme", "ctgov", "clinical_trial")
    assert inclusion.publication_date == "2014-08-07"
    assert not inclusion.is_table and inclusion.table_lines == () and inclusion.table_html is None
    json.dumps(inclusion.to_dict())


def test_content_hash_is_stable_and_sensitive(
    pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    document = pmc_documents[1]
    first = chunk(document, "paragraph", counter=token_counter)
    again = chunk(document, "paragraph", counter=token_counter)
    other_tenant = chunk(document, "paragraph", tenant_id="other", counter=token_counter)
    assert [c.content_hash for c in first] == [c.content_hash for c in again]
    assert all(a.content_hash != b.content_hash for a, b in zip(first, other_tenant, strict=True))
    assert first[0].content_hash == content_hash(first[0].to_dict())
    assert len({c.content_hash for c in first}) == len(first)


def test_title_only_document_gives_one_title_chunk() -> None:
    document = assemble_document(
        doc_id="42",
        title="A citation without an abstract",
        source="medline",
        doc_type="citation",
        url=None,
        publication_date=dt.date(2001, 3, 1),
        sections=[],
    )
    (only,) = chunk(document, "sentence", counter=RegexTokenCounter())
    assert (only.text, only.section, only.intent_hint) == (document.title, "title", None)
    assert only.publication_date == "2001-03-01"


def test_table_intent_follows_kind_then_caption() -> None:
    document = assemble_document(
        doc_id="d",
        title="T",
        source="pmc",
        doc_type="research-article",
        url=None,
        publication_date=None,
        sections=[SectionDraft("Results", "results", ("Results",), ("Some results.",))],
        tables=[
            TableDraft(
                "Table 1",
                "results",
                "Baseline characteristics",
                "<table/>",
                ("a | b", "1 | 2"),
                ("Results", "Table 1"),
            ),
            TableDraft(
                "Table 2",
                "results",
                "Adverse events by arm",
                "<table/>",
                ("a | b", "1 | 2"),
                ("Results", "Table 2"),
            ),
        ],
    )
    chunks = chunk(document, "section", counter=RegexTokenCounter())
    assert [c.intent_hint for c in chunks] == ["results", "results", "ae"]


def test_unknown_strategy_lists_the_valid_ones(pmc_documents: list[Document]) -> None:
    with pytest.raises(ValueError, match="section, paragraph, sentence, sliding_window"):
        chunk(pmc_documents[0], "semantic", counter=RegexTokenCounter())
    with pytest.raises(ValueError, match="overlap_pct"):
        chunk(pmc_documents[0], "sliding_window", overlap_pct=100, counter=RegexTokenCounter())
    with pytest.raises(ValueError, match="token_budget"):
        chunk(pmc_documents[0], "section", token_budget=0, counter=RegexTokenCounter())
