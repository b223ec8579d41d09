from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from control_plane.ingestion.documents import SECTION_KINDS, Document, Section, Table
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import dataset_files
from control_plane.ingestion.parsers.jats import iter_jats, parse_jats


def test_every_pmc_file_parses_into_one_document(datasets: Path) -> None:
    files = dataset_files("pmc", datasets)
    assert len(files) == 8
    for path in files:
        items = list(iter_jats(path))
        assert len(items) == 1
        assert isinstance(items[0], Document), items[0]


def test_article_metadata(pmc_documents: list[Document]) -> None:
    for document in pmc_documents:
        assert document.source == "pmc"
        assert document.doc_id.startswith("PMC")
        assert document.title and document.text.startswith(document.title)
        assert document.publication_date is not None
        assert document.url == f"https://www.ncbi.nlm.nih.gov/pmc/articles/{document.doc_id}/"
        assert document.metadata["pmid"]


def test_sections_cover_imrad_with_nested_title_paths(pmc_documents: list[Document]) -> None:
    kinds = Counter(section.kind for document in pmc_documents for section in document.sections)
    for expected in ("introduction", "methods", "results", "discussion", "background", "figure"):
        assert kinds[expected] > 0, kinds
    assert set(kinds) <= SECTION_KINDS
    nested = [s for d in pmc_documents for s in d.sections if len(s.title_path) >= 2 and s.kind != "figure"]
    assert nested, "nested <sec> elements should produce multi-level title paths"
    assert all(s.title_path[-1] == s.label for s in nested)


def test_abstract_parts_are_sections(pmc_documents: list[Document]) -> None:
    lysis = next(d for d in pmc_documents if d.metadata["file"] == "1471-2180-11-174.nxml")
    abstract = [s for s in lysis.sections if s.title_path[0] == "Abstract"]
    assert [s.title_path for s in abstract] == [
        ("Abstract", "Background"),
        ("Abstract", "Results"),
        ("Abstract", "Conclusions"),
    ]
    assert [s.kind for s in abstract] == ["background", "results", "conclusions"]


def test_nested_heading_inherits_parent_kind(pmc_documents: list[Document]) -> None:
    lysis = next(d for d in pmc_documents if d.metadata["file"] == "1471-2180-11-174.nxml")
    statistics = next(s for s in lysis.sections if s.title_path == ("Methods", "Statistical analysis"))
    assert statistics.kind == "methods"
    holin = next(
        s for s in lysis.sections if s.title_path[-1] == "Effect of allelic variation in holin sequence"
    )
    assert holin.kind == "results"


def test_section_spans_are_trimmed_non_empty_text(pmc_documents: list[Document]) -> None:
    for document in pmc_documents:
        spans: list[Section | Table] = [*document.sections, *document.tables]
        for span in spans:
            text = document.span_text(span)
            assert text and text == text.strip()


def test_tables_keep_every_row(datasets: Path, pmc_documents: list[Document]) -> None:
    total = 0
    for document in pmc_documents:
        root = ET.parse(datasets / "pmc" / document.metadata["file"]).getroot()
        wraps = list(root.iter("table-wrap"))
        assert len(document.tables) == len(wraps)
        for table, wrap in zip(document.tables, wraps, strict=True):
            assert len(table.row_lines) == len(list(wrap.iter("tr")))
            assert table.html.startswith("<table") and table.html.endswith("</table>")
            assert table.caption
            text = document.span_text(table)
            assert text.split("\n")[1:] == list(table.row_lines)
        total += len(wraps)
    assert total == 21


def test_table_cells_are_joined_with_pipes(pmc_documents: list[Document]) -> None:
    lysis = next(d for d in pmc_documents if d.metadata["file"] == "1471-2180-11-174.nxml")
    assert lysis.tables[0].row_lines[0] == "Strain | na | MLT (min) | SD (min)"
    assert lysis.tables[0].title_path == ("Results", "Table 1")


def test_figure_captions_are_indexed(pmc_documents: list[Document]) -> None:
    figures = [s for d in pmc_documents for s in d.sections if s.kind == "figure"]
    assert len(figures) == 17
    assert all(s.label.startswith(("Figure", "Fig")) for s in figures)


def test_truncated_article_reports_where(tmp_path: Path, datasets: Path) -> None:
    source = (datasets / "pmc" / "pone.0000217.nxml").read_bytes()
    broken = tmp_path / "truncated.nxml"
    broken.write_bytes(source[: len(source) // 2])
    (error,) = list(iter_jats(broken))
    assert isinstance(error, ParseError)
    assert error.path == broken
    assert error.location.startswith("line ")
    with pytest.raises(ParseError):
        list(parse_jats(broken))


def test_non_article_root_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "other.nxml"
    path.write_text("<book><title>x</title></book>", encoding="utf-8")
    (error,) = list(iter_jats(path))
    assert isinstance(error, ParseError)
    assert error.location == "/book"
