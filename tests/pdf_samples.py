"""Real PDFs with known text, generated with reportlab from the shared PMC articles' parsed text.

Shared by the pdf parser's unit tests and the PDF ingest integration test. Each builder writes the file
and returns what was typeset (title, sections with their paragraphs, tables, figure captions), so a
test can compare the parser's reading of the page with the text that was put there. Only paragraphs
the standard PDF fonts can typeset whole (printable ASCII) are used, so the known text is exact.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.graphics.shapes import Drawing, Rect
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    FrameBreak,
    KeepTogether,
    NextPageTemplate,
    PageTemplate,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from control_plane.ingestion.documents import Document, Section

TITLE = ParagraphStyle("title", fontName="Helvetica-Bold", fontSize=16, leading=20, spaceAfter=10)
HEADING = ParagraphStyle("heading", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=8)
SUBHEADING = ParagraphStyle("subheading", fontName="Times-Bold", fontSize=10, leading=12, spaceBefore=6)
BODY = ParagraphStyle("body", fontName="Times-Roman", fontSize=10, leading=12, spaceAfter=6)
CAPTION = ParagraphStyle("caption", fontName="Times-Italic", fontSize=9, leading=11, spaceAfter=6)
CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=8, leading=10)
_TYPESETTABLE = frozenset(string.printable) - frozenset("\t\n\r\x0b\x0c")


@dataclass(frozen=True)
class TypesetSection:
    """A section as typeset: its heading path (a nested one under its parent's heading) and paragraphs."""

    title_path: tuple[str, ...]
    kind: str
    paragraphs: tuple[str, ...]

    @property
    def heading(self) -> str:
        return self.title_path[-1]


@dataclass(frozen=True)
class TypesetTable:
    label: str
    caption: str
    rows: tuple[tuple[str, ...], ...]

    @property
    def row_lines(self) -> tuple[str, ...]:
        return tuple(" ".join(" | ".join(row).split()) for row in self.rows)


@dataclass(frozen=True)
class TypesetPdf:
    """What a generated PDF holds, in reading order."""

    path: Path
    title: str
    sections: tuple[TypesetSection, ...]
    tables: tuple[TypesetTable, ...] = ()
    figure_captions: tuple[str, ...] = ()
    columns: int = 1
    source_doc_id: str = ""
    meta: dict[str, str] = field(default_factory=dict)


def typesettable(text: str) -> bool:
    return bool(text) and set(text) <= _TYPESETTABLE


def _paragraphs(document: Document, section: Section) -> tuple[str, ...]:
    return tuple(p for p in document.span_text(section).split("\n\n") if typesettable(p))


def pick_sections(document: Document, count: int, max_paragraphs: int) -> tuple[TypesetSection, ...]:
    """The first ``count`` body sections (not the abstract's parts) that have typesettable paragraphs."""
    picked: list[TypesetSection] = []
    for section in document.sections:
        if section.title_path[0] in {"Abstract", "Author Summary"} or section.kind == "figure":
            continue
        paragraphs = _paragraphs(document, section)[:max_paragraphs]
        if paragraphs and all(typesettable(part) for part in section.title_path):
            picked.append(TypesetSection(section.title_path, section.kind, paragraphs))
        if len(picked) == count:
            break
    return tuple(picked)


def _para(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(text), style)


def _section_flowables(section: TypesetSection, previous: TypesetSection | None) -> list[Flowable]:
    """The section's heading (a level-2 heading under its parent's, set first when the parent changes)
    and paragraphs."""
    flowables: list[Flowable] = []
    if len(section.title_path) > 1 and (previous is None or previous.title_path[0] != section.title_path[0]):
        flowables.append(_para(section.title_path[0], HEADING))
    flowables.append(_para(section.heading, HEADING if len(section.title_path) == 1 else SUBHEADING))
    flowables.extend(_para(p, BODY) for p in section.paragraphs)
    return flowables


def _page_number(canvas: Canvas, doc: BaseDocTemplate) -> None:
    """A footer with the page number, as journals print it (the parser drops it)."""
    canvas.setFont("Helvetica", 8)
    canvas.drawCentredString(A4[0] / 2, 12 * mm, str(doc.page))


def single_column_pdf(document: Document, path: Path) -> TypesetPdf:
    """One column over several pages, numbered in the footer: the title, then the article's first body
    sections (nested ones under their parent's heading), a few paragraphs each."""
    sections = pick_sections(document, count=6, max_paragraphs=3)
    story: list[Flowable] = [_para(document.title, TITLE)]
    for previous, section in zip((None, *sections), sections, strict=False):
        story.extend(_section_flowables(section, previous))
    template = SimpleDocTemplate(str(path), pagesize=A4, title=document.title)
    template.build(story, onFirstPage=_page_number, onLaterPages=_page_number)
    return TypesetPdf(path, document.title, sections, source_doc_id=document.doc_id)


class _FigureBox(Flowable):  # type: ignore[misc]
    """A drawn figure (bars in a frame): graphics, no text."""

    def __init__(self, width: float, height: float) -> None:
        super().__init__()
        self.width, self.height = width, height

    def draw(self) -> None:
        drawing = Drawing(self.width, self.height)
        drawing.add(Rect(0, 0, self.width, self.height, strokeColor=colors.black, fillColor=None))
        for i, value in enumerate((0.3, 0.7, 0.5, 0.9)):
            bar_width = self.width / 9
            drawing.add(
                Rect(bar_width * (2 * i + 1), 0, bar_width, self.height * value, fillColor=colors.grey)
            )
        drawing.drawOn(self.canv, 0, 0)


def _table_flowable(table: TypesetTable, width: float) -> Table:
    columns = max(len(row) for row in table.rows)
    first = width * 0.4
    widths = [first, *([(width - first) / (columns - 1)] * (columns - 1))]
    cells = [[_para(cell, CELL) for cell in row] for row in table.rows]
    flowable = Table(cells, colWidths=widths)
    flowable.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    return flowable


def pick_table(document: Document, max_rows: int = 9) -> TypesetTable:
    """The document's first table whose cells are all typesettable and whose rows fit a column."""
    for table in document.tables:
        rows = tuple(tuple(cell.strip() for cell in f" {line} ".split(" | ")) for line in table.row_lines)
        widths = {len(row) for row in rows}
        cells = [cell for row in rows for cell in row]
        if len(widths) == 1 and len(rows) <= max_rows and all(not c or typesettable(c) for c in cells):
            caption = " ".join(table.caption.split(":")[0].split())
            if typesettable(caption):
                return TypesetTable(table.label, caption, rows)
    raise LookupError(f"{document.doc_id} has no table that can be typeset in a column")


def two_column_pdf(document: Document, path: Path) -> TypesetPdf:
    """Two columns under a full-width title: sections flow down the left column, then the right; a
    table with its caption above it, and a drawn figure with its caption below it, in the left column."""
    sections = pick_sections(document, count=5, max_paragraphs=2)
    table = pick_table(document)
    figure_caption = (
        "Figure 1. Distribution of the total scores in the study sample (bars: quartiles of the "
        "score, frame: the whole range)."
    )
    page_width, page_height = A4
    margin, gutter = 18 * mm, 8 * mm
    column = (page_width - 2 * margin - gutter) / 2
    title_lines = len(simpleSplit(document.title, TITLE.fontName, TITLE.fontSize, page_width - 2 * margin))
    title_height = title_lines * TITLE.leading + 24
    body_top = page_height - margin - title_height

    def columns(top: float) -> list[Frame]:
        height = top - margin
        return [
            Frame(margin, margin, column, height, id="left", leftPadding=0, rightPadding=0),
            Frame(
                margin + column + gutter, margin, column, height, id="right", leftPadding=0, rightPadding=0
            ),
        ]

    first = PageTemplate(
        id="first",
        frames=[
            Frame(margin, body_top, page_width - 2 * margin, title_height, id="title", leftPadding=0),
            *columns(body_top),
        ],
    )
    later = PageTemplate(id="later", frames=columns(page_height - margin))
    doc = BaseDocTemplate(str(path), pagesize=A4, title=document.title, pageTemplates=[first, later])
    story: list[Flowable] = [_para(document.title, TITLE), NextPageTemplate("later"), FrameBreak()]
    for number, (previous, section) in enumerate(zip((None, *sections), sections, strict=False)):
        story.extend(_section_flowables(section, previous))
        if number == 0:
            story.append(
                KeepTogether(
                    [
                        Spacer(1, 4),
                        _para(f"{table.label}. {table.caption}", CAPTION),
                        _table_flowable(table, column),
                        Spacer(1, 8),
                    ]
                )
            )
        if number == 1:
            story.append(
                KeepTogether([_FigureBox(column, 40 * mm), Spacer(1, 4), _para(figure_caption, CAPTION)])
            )
    doc.build(story)
    return TypesetPdf(
        path,
        document.title,
        sections,
        tables=(table,),
        figure_captions=(figure_caption,),
        columns=2,
        source_doc_id=document.doc_id,
    )


def encrypted_pdf(path: Path, user_password: str = "s3cret") -> Path:
    """A small PDF that needs a password to open (reportlab's standard encryption)."""
    from reportlab.lib.pdfencrypt import StandardEncryption

    encryption = StandardEncryption(user_password, ownerPassword="owner-" + user_password, strength=128)
    SimpleDocTemplate(str(path), pagesize=A4, encrypt=encryption).build(
        [_para("Confidential", TITLE), _para("This text needs a password.", BODY)]
    )
    return path


def owner_locked_pdf(path: Path) -> Path:
    """Encrypted with an empty user password and an owner password: anyone may open and read it."""
    from reportlab.lib.pdfencrypt import StandardEncryption

    encryption = StandardEncryption("", ownerPassword="owner-only", canModify=0, strength=128)
    SimpleDocTemplate(str(path), pagesize=A4, encrypt=encryption).build(
        [_para("Confidential", TITLE), _para("This text needs a password.", BODY)]
    )
    return path


def textless_pdf(path: Path) -> Path:
    """Only graphics, no text layer (what a scan without OCR looks like to a text extractor)."""
    SimpleDocTemplate(str(path), pagesize=A4).build([_FigureBox(120 * mm, 80 * mm)])
    return path


def corrupt_pdf(path: Path) -> Path:
    """A file that says it is a PDF and is not one (a truncated header and garbage)."""
    path.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\n" + bytes(range(256)) * 4)
    return path


# The documentation's sample PDF (docs/examples/sample-trial-report.pdf): fictional text written for the
# guide, so a newcomer can ingest a PDF without finding one; the guide's runnable examples ingest it.
SAMPLE_TITLE = "Low-dose aspirin and bleeding in older adults: a sample trial report"
SAMPLE_SECTIONS = (
    TypesetSection(
        ("Background",),
        "background",
        (
            "This report is a fictional example written for the biohybrid documentation; its numbers "
            "describe no real trial. Low-dose aspirin is taken by many older adults to prevent "
            "cardiovascular events, and its main harm is bleeding.",
        ),
    ),
    TypesetSection(
        ("Methods",),
        "methods",
        (
            "In a randomised, double-blind trial, 400 adults aged 70 years or older took aspirin 100 mg "
            "or a placebo once daily for two years. The primary safety outcome was major bleeding.",
        ),
    ),
    TypesetSection(
        ("Eligibility",),
        "eligibility",
        (
            "Inclusion criteria: age 70 years or older; no prior cardiovascular disease; able to give "
            "consent. Exclusion criteria: a bleeding disorder, current anticoagulant therapy, or "
            "anaemia at screening.",
        ),
    ),
    TypesetSection(
        ("Results",),
        "results",
        (
            "Major bleeding occurred in 6 participants on aspirin and in 2 on placebo. Gastrointestinal "
            "bleeding was the most frequent serious adverse event.",
        ),
    ),
    TypesetSection(
        ("Conclusions",),
        "conclusions",
        ("In this fictional sample, aspirin increased bleeding without a measured benefit.",),
    ),
)
SAMPLE_TABLE = TypesetTable(
    "Table 1",
    "Adverse events by group",
    (
        ("Adverse event", "Aspirin (n = 200)", "Placebo (n = 200)"),
        ("Major bleeding", "6", "2"),
        ("Gastrointestinal bleeding", "4", "1"),
        ("Headache", "11", "12"),
    ),
)
SAMPLE_FIGURE = "Figure 1. Cumulative incidence of major bleeding by group (fictional data)."


def sample_trial_report_pdf(path: Path) -> TypesetPdf:
    """The documentation's sample: one page, headed sections, a ruled table and a figure with its caption
    (reportlab's invariant mode: the same bytes on every run of the same reportlab)."""
    from reportlab import rl_config

    invariant = rl_config.invariant
    rl_config.invariant = 1
    try:
        story: list[Flowable] = [_para(SAMPLE_TITLE, TITLE)]
        for section in SAMPLE_SECTIONS:
            story.extend(_section_flowables(section, None))
            if section.heading == "Results":
                story.append(_para(f"{SAMPLE_TABLE.label}. {SAMPLE_TABLE.caption}", CAPTION))
                story.append(_table_flowable(SAMPLE_TABLE, 120 * mm))
                story.append(Spacer(1, 8))
                story.append(_FigureBox(120 * mm, 30 * mm))
                story.append(Spacer(1, 4))
                story.append(_para(SAMPLE_FIGURE, CAPTION))
        SimpleDocTemplate(str(path), pagesize=A4, title=SAMPLE_TITLE).build(story)
    finally:
        rl_config.invariant = invariant
    return TypesetPdf(
        path, SAMPLE_TITLE, SAMPLE_SECTIONS, tables=(SAMPLE_TABLE,), figure_captions=(SAMPLE_FIGURE,)
    )
