"""The pdf parser on real PDFs typeset from PMC articles (tests/pdf_samples.py): reading order, sections,
tables, figure captions, page layout; and bad, encrypted and text-less files as parse errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pdfplumber
import pytest
from pdf_samples import (
    TypesetPdf,
    corrupt_pdf,
    encrypted_pdf,
    owner_locked_pdf,
    textless_pdf,
)

from control_plane.ingestion.assembly import SectionDraft, TableDraft, assemble_document
from control_plane.ingestion.chunking import STRATEGIES, Chunk, chunk
from control_plane.ingestion.documents import Document, LineBox, PageBox
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.layout import merge_layouts, overlapping_lines, span_layout
from control_plane.ingestion.parsers import iter_documents, iter_pdf, parse_pdf, parser_for
from control_plane.ingestion.tokens import HuggingFaceTokenCounter

CORE_STRATEGIES = [name for name in STRATEGIES if not name.startswith("haystack-")]


def _pair(
    typeset_pdfs: list[TypesetPdf], pdf_documents: list[Document], columns: int
) -> tuple[TypesetPdf, Document]:
    typeset = next(t for t in typeset_pdfs if t.columns == columns)
    document = next(d for d in pdf_documents if d.metadata["file"] == typeset.path.name)
    return typeset, document


@pytest.fixture(scope="module", params=[1, 2], ids=["single-column", "two-column"])
def pair(
    request: pytest.FixtureRequest, typeset_pdfs: list[TypesetPdf], pdf_documents: list[Document]
) -> tuple[TypesetPdf, Document]:
    return _pair(typeset_pdfs, pdf_documents, request.param)


@pytest.fixture(scope="module")
def two_column(typeset_pdfs: list[TypesetPdf], pdf_documents: list[Document]) -> tuple[TypesetPdf, Document]:
    return _pair(typeset_pdfs, pdf_documents, 2)


def _body_sections(document: Document) -> list[tuple[tuple[str, ...], str, list[str]]]:
    return [
        (s.title_path, s.kind, document.span_text(s).split("\n\n"))
        for s in document.sections
        if s.kind != "figure"
    ]


def test_every_section_is_recovered_with_its_heading_path_kind_and_paragraphs(
    pair: tuple[TypesetPdf, Document],
) -> None:
    typeset, document = pair
    assert document.source == "pdf" and document.doc_id == typeset.path.stem
    assert document.title == typeset.title
    expected = [(s.title_path, s.kind, list(s.paragraphs)) for s in typeset.sections]
    assert _body_sections(document) == expected
    # Nested headings were typeset, so the paths have two levels somewhere.
    assert any(len(s.title_path) == 2 for s in typeset.sections)


def test_text_follows_the_reading_order(pair: tuple[TypesetPdf, Document]) -> None:
    """Every typeset paragraph appears once, in the order it was typeset (left column before right)."""
    typeset, document = pair
    cursor = 0
    for section in typeset.sections:
        for paragraph in section.paragraphs:
            found = document.text.find(paragraph, cursor)
            assert found >= cursor, paragraph[:60]
            assert document.text.count(paragraph) == 1
            cursor = found + len(paragraph)


def test_two_column_pages_are_read_left_column_first(two_column: tuple[TypesetPdf, Document]) -> None:
    typeset, document = two_column
    boxes = [line for line in document.layout if line.page == 1 and line.top > 120]
    middle = 595.28 / 2
    left = [line for line in boxes if line.x1 < middle]
    right = [line for line in boxes if line.x0 > middle]
    assert left and right and not [line for line in boxes if line.x0 < middle < line.x1]
    # On the first page every left-column line comes before every right-column line in the text.
    assert max(line.end for line in left) < min(line.start for line in right)
    assert typeset.columns == 2


def test_the_table_is_kept_whole_with_its_caption(two_column: tuple[TypesetPdf, Document]) -> None:
    typeset, document = two_column
    (expected,) = typeset.tables
    (table,) = document.tables
    assert (table.label, table.caption, table.row_lines) == (
        expected.label,
        expected.caption,
        expected.row_lines,
    )
    assert document.span_text(table) == "\n".join(
        (f"{expected.label}: {expected.caption}", *expected.row_lines)
    )
    assert table.title_path == (*typeset.sections[0].title_path, expected.label)
    assert "<td>Total OHIP-NL (49)</td>" in table.html
    # The caption is not prose as well.
    assert not any(expected.caption in document.span_text(s) for s in document.sections)
    (table_chunk,) = [c for c in chunk(document, "sentence", token_budget=32) if c.is_table]
    assert table_chunk.text == document.span_text(table) and table_chunk.table_lines == expected.row_lines


def test_figure_captions_become_figure_sections(two_column: tuple[TypesetPdf, Document]) -> None:
    typeset, document = two_column
    (caption,) = typeset.figure_captions
    (figure,) = [s for s in document.sections if s.kind == "figure"]
    assert (figure.label, document.span_text(figure)) == ("Figure 1", caption)
    # Typeset after the second section's paragraphs, so it sits under that section's heading.
    assert figure.title_path == (*typeset.sections[1].title_path, "Figure 1")
    assert document.sections[-1] == figure  # after the body sections, as JATS figures are
    assert document.text.count(caption) == 1


def test_page_numbers_in_the_margin_are_not_text(
    typeset_pdfs: list[TypesetPdf], pdf_documents: list[Document]
) -> None:
    typeset, document = _pair(typeset_pdfs, pdf_documents, 1)
    assert document.metadata["pages"] == 2
    assert {line.page for line in document.layout} == {1, 2}
    with pdfplumber.open(typeset.path) as pdf:
        footer = [c for c in pdf.pages[1].chars if c["top"] > pdf.pages[1].height * 0.92]
    assert "".join(c["text"] for c in footer) == "2"
    assert not any(line.top > 780 for line in document.layout)


def _glyphs_inside(pdf: pdfplumber.pdf.PDF, boxes: list[dict[str, float]]) -> Counter[str]:
    glyphs: Counter[str] = Counter()
    for box in boxes:
        page = pdf.pages[int(box["page"]) - 1]
        for char in page.chars:
            x, y = (char["x0"] + char["x1"]) / 2, (char["top"] + char["bottom"]) / 2
            if box["x0"] <= x <= box["x1"] and box["top"] <= y <= box["bottom"]:
                glyphs[char["text"]] += 1
    return glyphs


@pytest.mark.parametrize("strategy", ["section", "sentence", "sliding_window"])
def test_each_chunks_boxes_hold_its_text_glyphs(
    pair: tuple[TypesetPdf, Document], strategy: str, token_counter: HuggingFaceTokenCounter
) -> None:
    typeset, document = pair
    chunks = chunk(document, strategy, token_budget=48, counter=token_counter)
    assert len(chunks) > len(document.sections)
    with pdfplumber.open(typeset.path) as pdf:
        for item in chunks:
            assert item.layout is not None, item.chunk_id
            boxes = item.layout["boxes"]
            assert item.layout["pages"] == sorted({box["page"] for box in boxes})
            inside = _glyphs_inside(pdf, boxes)
            wanted = Counter(c for c in item.text if c.isalnum())
            missing = wanted - inside
            assert not missing, (item.chunk_id, missing)
            # Tight: each box is one line of the chunk, not a whole column.
            assert all(box["bottom"] - box["top"] < 20 or item.is_table for box in boxes)


def test_chunk_layout_is_stored_and_only_for_pdf_chunks(
    pdf_documents: list[Document], pmc_documents: list[Document]
) -> None:
    pdf_chunk = chunk(pdf_documents[0], "section")[0]
    assert pdf_chunk.to_dict()["layout"] == pdf_chunk.layout
    pmc_chunk: Chunk = chunk(pmc_documents[0], "section")[0]
    assert pmc_chunk.layout is None and "layout" not in pmc_chunk.to_dict()


def test_layout_lines_tile_the_text_in_order(pdf_documents: list[Document]) -> None:
    for document in pdf_documents:
        assert document.layout
        for before, after in zip(document.layout, document.layout[1:], strict=False):
            # A table caption typeset on several lines: one box per line, each with the heading's range.
            assert before.end <= after.start or (before.start, before.end) == (after.start, after.end)
        for line in document.layout:
            assert document.text[line.start : line.end].strip() == document.text[line.start : line.end]
            assert line.end > line.start and line.x1 > line.x0 and line.bottom > line.top


def test_dispatch_routes_pdf_files(typeset_pdfs: list[TypesetPdf]) -> None:
    assert parser_for(typeset_pdfs[0].path) is iter_pdf
    folder = typeset_pdfs[0].path.parent
    assert sorted(d.doc_id for d in iter_documents(folder) if isinstance(d, Document)) == [
        "single-column",
        "two-column",
    ]


def test_corrupt_and_encrypted_pdfs_are_parse_errors_with_the_reason(tmp_path: Path) -> None:
    (bad,) = iter_pdf(corrupt_pdf(tmp_path / "bad.pdf"))
    assert isinstance(bad, ParseError) and bad.location == "file"
    assert bad.reason.startswith("not a readable PDF: ")
    (locked,) = iter_pdf(encrypted_pdf(tmp_path / "locked.pdf"))
    assert isinstance(locked, ParseError)
    assert locked.reason == "encrypted: a password is needed to open it"
    (scan,) = iter_pdf(textless_pdf(tmp_path / "scan.pdf"))
    assert isinstance(scan, ParseError) and scan.reason.startswith("no text layer")
    with pytest.raises(ParseError, match="encrypted"):
        list(parse_pdf(tmp_path / "locked.pdf"))


def test_a_pdf_locked_only_against_editing_opens(tmp_path: Path) -> None:
    """Encrypted with an empty user password (printing and copying allowed): readable without one."""
    (document,) = parse_pdf(owner_locked_pdf(tmp_path / "owner.pdf"))
    assert document.title == "Confidential"
    assert document.text == "Confidential\n\nThis text needs a password."


# -- pure pieces -------------------------------------------------------------------------------------------


def test_assembly_moves_paragraph_and_table_lines_to_document_offsets() -> None:
    box = PageBox(1, 10.0, 20.0, 110.0, 30.0)
    other = PageBox(1, 10.0, 32.0, 60.0, 42.0)
    document = assemble_document(
        doc_id="d",
        title="T",
        source="pdf",
        doc_type="article",
        url=None,
        publication_date=None,
        sections=[
            SectionDraft(
                "S",
                "other",
                ("S",),
                ("one two", "", "three"),
                paragraph_lines=(
                    (LineBox.of(0, 3, box), LineBox.of(4, 7, other)),
                    (),
                    (LineBox.of(0, 5, box),),
                ),
            )
        ],
        tables=[
            TableDraft(
                "Table 1",
                "table",
                "cap",
                "",
                ("a | b", "c | d"),
                heading_boxes=(box,),
                row_boxes=((box,), (other,)),
            )
        ],
    )
    assert document.text == "T\n\none two\n\nthree\n\nTable 1: cap\na | b\nc | d"
    assert [document.text[line.start : line.end] for line in document.layout] == [
        "one",
        "two",
        "three",
        "Table 1: cap",
        "a | b",
        "c | d",
    ]
    with pytest.raises(ValueError, match="collapsed"):
        assemble_document(
            doc_id="d",
            title="",
            source="pdf",
            doc_type="article",
            url=None,
            publication_date=None,
            sections=[
                SectionDraft("S", "other", ("S",), ("a  b",), paragraph_lines=((LineBox.of(0, 4, box),),))
            ],
        )


def test_span_layout_selects_the_overlapping_lines() -> None:
    lines = [LineBox.of(0, 10, PageBox(1, 0, 0, 100, 10)), LineBox.of(11, 20, PageBox(2, 0, 5, 50, 15.126))]
    assert overlapping_lines(lines, 10, 11) == []
    assert overlapping_lines(lines, 9, 12) == lines
    assert span_layout(lines, 12, 14) == {
        "pages": [2],
        "boxes": [{"page": 2, "x0": 0, "top": 5, "x1": 50, "bottom": 15.13}],
    }
    assert span_layout([], 0, 5) is None
    first, second = span_layout(lines, 0, 3), span_layout(lines, 12, 14)
    assert merge_layouts([first, second, second, None]) == {
        "pages": [1, 2],
        "boxes": [*first["boxes"], *second["boxes"]],  # type: ignore[index]
    }
    assert merge_layouts([None]) is None
