"""PDF full text (``.pdf``) with layout provenance: reading order, sections, tables, figure captions, boxes.

Built on pdfplumber (MIT licence; pure Python over pdfminer.six) because it gives every glyph with its
font and box, which is what reading order, heading detection and provenance need. PyMuPDF would be
faster, but it is AGPL-licensed (or commercial), which this Apache-2.0 project cannot ship with.

How a page is read:

* **Lines.** Words (pdfplumber ``extract_words``: a gap of 0.15 font sizes separates words; split where
  font or size changes) are grouped into lines by vertical position; a horizontal gap wider than 1.2
  font sizes splits a line into segments, so the two columns of a page never share a line. Tables
  pdfplumber finds (``find_tables``: ruled tables) are taken out of the prose and kept whole. A bare
  page number in the top or bottom margin is dropped.
* **Columns.** A page is two-column when a vertical gutter in its middle third is crossed by few
  segments while at least three lie wholly on each side (the x-distribution of the lines). The page is
  then read in bands: segments that cross the gutter (a title, a full-width figure) cut the page into
  bands, and each band is read left column top to bottom, then right column.
* **Blocks.** Consecutive lines form a paragraph; a larger vertical gap than the document's usual
  line gap, a change of font size, or an indented first line after a sentence end starts a new one. A
  paragraph goes on across a column or page break unless its last line was short and ended a sentence.
  A line broken with a hyphen before a lower-case letter is joined without the hyphen.
* **Headings and sections.** The body size is the most common glyph size; a short block set larger
  than the body (x 1.15), or wholly in a bold face, is a heading. The largest such text on the first
  page is the title (else the PDF's Title metadata, else the file name). Heading styles are ranked by
  size then boldness: a heading closes every open heading of its rank or lower, which gives the
  ``title_path``; kinds come from the heading text (``section_kinds``), and a nested heading refines
  its parent's kind only as the JATS parser's do (``nested_kind``). Text before the first heading is
  "Front matter".
* **Tables and figures.** A table keeps its rows (cells joined by `` | ``, as everywhere); a paragraph
  starting "Table N" right above or below it is its label and caption. A paragraph starting "Figure N." or
  "Fig. N:" is that figure's caption: a section of kind ``figure`` labelled "Figure N" under the heading
  it appears in, placed after the body sections (as the JATS parser places figures).
* **Layout.** Every typeset line becomes a :class:`~control_plane.ingestion.documents.LineBox` (its
  range in the canonical text, page, box); a table's heading and each row get their boxes too.

A file pdfminer cannot read, an encrypted file that needs a password (one with only an owner password
opens), or one without any text layer (a scan) is a :class:`ParseError` naming the reason, so an ingest
run puts it in the dead-letter file. The document id is the file name without ``.pdf``.

The stages live in modules that import only downward: ``page`` (lines, columns, ruled tables: a page's
items in reading order), ``blocks`` (paragraphs and the body style), ``sections`` (title, headings,
tables and figures); this module opens the file and assembles the document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfplumber.pdf import PDF
from pdfplumber.utils.exceptions import PdfminerException

from control_plane.ingestion.assembly import assemble_document
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError, raise_errors
from control_plane.ingestion.parsers.pdf.blocks import body_style, build_blocks
from control_plane.ingestion.parsers.pdf.page import Item, page_items
from control_plane.ingestion.parsers.pdf.sections import find_title, read
from control_plane.ingestion.textnorm import collapse_whitespace

__all__ = ["iter_pdf", "parse_pdf", "pdf_document"]

_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;)]")


def pdf_document(pdf: PDF, path: Path) -> Document:
    """The document of an opened PDF; :class:`ParseError` when it has no text layer."""
    items: list[Item] = []
    for page in pdf.pages:
        items.extend(page_items(page))
        page.close()  # the items hold all that is needed: free the page's parsed objects
    if not any(item.words for item in items):
        raise ParseError(path, "file", "no text layer (a scanned PDF needs OCR first)")
    style = body_style(items)
    blocks = build_blocks(items, style)
    title, title_index = find_title(blocks, style, pdf.metadata, path)
    reader = read(blocks, style, title_index)
    first_page_text = " ".join(b.text for b in blocks if b.lines and b.page == 1)
    doi = _DOI.search(first_page_text)
    return assemble_document(
        doc_id=path.stem,
        title=title,
        source="pdf",
        doc_type="article",
        url=None,
        publication_date=None,
        sections=[*(section.draft() for section in reader.sections), *reader.figures],
        tables=reader.tables,
        metadata={
            "file": path.name,
            "pages": len(pdf.pages),
            "pdf_title": collapse_whitespace(str(pdf.metadata.get("Title") or "")) or None,
        },
        identifiers=(doi.group(0) if doi else None,),
    )


def _open_error(path: Path, error: Exception) -> ParseError:
    cause = error.args[0] if isinstance(error, PdfminerException) and error.args else error
    if isinstance(cause, PDFPasswordIncorrect):
        return ParseError(path, "file", "encrypted: a password is needed to open it")
    if isinstance(cause, PDFEncryptionError):
        return ParseError(path, "file", f"encrypted with an unsupported scheme: {cause}")
    detail = str(cause) or type(cause).__name__
    return ParseError(path, "file", f"not a readable PDF: {type(cause).__name__}: {detail}")


def iter_pdf(path: Path | str) -> Iterator[Document | ParseError]:
    """The document in one ``.pdf`` file, or a :class:`ParseError` saying why it cannot be read."""
    path = Path(path)
    try:
        with pdfplumber.open(path) as pdf:
            document = pdf_document(pdf, path)
    except ParseError as error:
        yield error
        return
    except OSError as error:
        yield ParseError(path, "file", f"unreadable: {error}")
        return
    except Exception as error:  # pdfminer raises many unrelated types on damaged files
        yield _open_error(path, error)
        return
    yield document


def parse_pdf(path: Path | str) -> Iterator[Document]:
    """Strict :func:`iter_pdf`: raises the :class:`ParseError` instead of yielding it."""
    return raise_errors(iter_pdf(path))
