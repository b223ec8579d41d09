"""PubMed Central JATS full text (``.nxml``): title, abstracts, nested IMRaD sections, figures, tables.

Nested ``<sec>`` elements become sections whose ``title_path`` lists every enclosing heading; a heading
the kind rules do not recognise inherits its parent's kind ("Methods > Study population" is methods).
Paragraphs placed directly in ``<body>`` before the first ``<sec>`` are labelled "Introduction", which is
what they are in research articles. Tables and figures are collected with the heading path of the
section they sit in; back matter (references, acknowledgements, footnotes) is not indexed.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from control_plane.ingestion.assembly import SectionDraft, TableDraft, assemble_document, prose
from control_plane.ingestion.dates import date_from_parts
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError, raise_errors
from control_plane.ingestion.parsers.safe_xml import XmlRefusedError, parse_root
from control_plane.ingestion.parsers.study_names import registered_study_names, study_names
from control_plane.ingestion.parsers.xml_text import element_text, error_location, local_name, to_html
from control_plane.ingestion.section_kinds import classify_heading, nested_kind

# Subtrees that are not running prose: floats are collected separately, maths has no useful text form.
_NON_PROSE = frozenset(
    {"table-wrap", "fig", "supplementary-material", "math", "tex-math", "graphic", "inline-graphic", "media"}
)
_BLOCK_TAGS = frozenset({"p", "disp-quote", "boxed-text", "list", "def-list", "statement", "speech"})
_DATE_PREFERENCE = ("epub", "ppub", "epub-ppub", "collection", "pmc-release")
_NON_CONTENT_SEC_TYPES = frozenset({"supplementary-material", "display-objects"})
_ABSTRACT_HEADINGS = {"summary": "Author Summary", "executive-summary": "Executive Summary"}


@dataclass
class _Collected:
    sections: list[SectionDraft] = field(default_factory=list)
    figures: list[SectionDraft] = field(default_factory=list)
    tables: list[TableDraft] = field(default_factory=list)


def _paragraphs(block: ET.Element) -> list[str]:
    """Text of a block element; lists give one paragraph per item."""
    if local_name(block.tag) in {"list", "def-list"}:
        items = [child for child in block if local_name(child.tag) in {"list-item", "def-item"}]
        return [element_text(item, _NON_PROSE) for item in items]
    return [element_text(block, _NON_PROSE)]


def _block_paragraphs(container: ET.Element) -> tuple[str, ...]:
    """Paragraphs of the block children of a section (nested sections excluded)."""
    blocks = (child for child in container if local_name(child.tag) in _BLOCK_TAGS)
    return tuple(text for block in blocks for text in _paragraphs(block))


def _own_descendants(element: ET.Element, tag: str) -> Iterator[ET.Element]:
    """Descendants named ``tag``, not looking inside nested ``<sec>`` (they collect their own)."""
    for child in element:
        name = local_name(child.tag)
        if name == tag:
            yield child
        elif name != "sec":
            yield from _own_descendants(child, tag)


def _table(wrap: ET.Element, path: tuple[str, ...], kind: str) -> TableDraft:
    label = element_text(wrap.find("label")).rstrip(".:")
    caption = element_text(wrap.find("caption"), _NON_PROSE)
    rows = []
    for row in wrap.iter("tr"):
        cells = [element_text(cell, _NON_PROSE) for cell in row if local_name(cell.tag) in {"td", "th"}]
        rows.append(" | ".join(cells))
    html = "".join(to_html(table) for table in wrap.iter("table"))
    return TableDraft(label or "Table", kind, caption, html, tuple(rows), (*path, label or "Table"))


def _figure(fig: ET.Element, path: tuple[str, ...]) -> SectionDraft:
    label = element_text(fig.find("label")).rstrip(".:") or "Figure"
    caption = fig.find("caption")
    paragraphs = [] if caption is None else [element_text(part, _NON_PROSE) for part in caption]
    return SectionDraft(label, "figure", (*path, label), tuple(paragraphs))


def _collect_floats(container: ET.Element, path: tuple[str, ...], kind: str, out: _Collected) -> None:
    """Tables take the kind of the section they sit in ("results"), or ``table`` when that is unknown."""
    for wrap in _own_descendants(container, "table-wrap"):
        out.tables.append(_table(wrap, path, "table" if kind == "other" else kind))
    for fig in _own_descendants(container, "fig"):
        out.figures.append(_figure(fig, path))


def _section_kind(sec_type: str, title: str, parent_kind: str) -> str:
    """``sec-type`` first, then the heading; nested sections refine their parent only into specific kinds."""
    if sec_type in _NON_CONTENT_SEC_TYPES:
        return "other"
    own = classify_heading(sec_type) if sec_type else "other"
    if own == "other" and title:
        own = classify_heading(title)
    return nested_kind(own, parent_kind)


def _walk_sec(sec: ET.Element, parent_path: tuple[str, ...], parent_kind: str, out: _Collected) -> None:
    title = element_text(sec.find("title"), _NON_PROSE).rstrip(":").strip()
    kind = _section_kind(sec.get("sec-type") or "", title, parent_kind)
    path = (*parent_path, title) if title else parent_path
    paragraphs = [
        text for child in sec if local_name(child.tag) in _BLOCK_TAGS for text in _paragraphs(child)
    ]
    out.sections.append(
        SectionDraft(title or (path[-1] if path else "Section"), kind, path, tuple(paragraphs))
    )
    _collect_floats(sec, path, kind, out)
    for child in sec:
        if local_name(child.tag) == "sec":
            _walk_sec(child, path, kind, out)


def _walk_abstract(abstract: ET.Element, out: _Collected) -> None:
    abstract_type = abstract.get("abstract-type") or ""
    heading = element_text(abstract.find("title")) or _ABSTRACT_HEADINGS.get(abstract_type, "Abstract")
    kind = "summary" if abstract_type in _ABSTRACT_HEADINGS else "abstract"
    out.sections.append(SectionDraft(heading, kind, (heading,), _block_paragraphs(abstract)))
    for sec in abstract.findall("sec"):
        _walk_sec(sec, (heading,), kind, out)


def _walk_body(body: ET.Element, out: _Collected) -> None:
    loose: list[str] = []
    seen_sec = False
    for child in body:
        name = local_name(child.tag)
        if name == "sec":
            if loose:
                label = "Body" if seen_sec else "Introduction"
                kind = "other" if seen_sec else "introduction"
                out.sections.append(SectionDraft(label, kind, (label,), tuple(loose)))
                loose = []
            seen_sec = True
            _walk_sec(child, (), "other", out)
        elif name in _BLOCK_TAGS:
            loose.extend(_paragraphs(child))
    if loose:
        out.sections.append(SectionDraft("Body", "other", ("Body",), tuple(loose)))
    _collect_floats(body, (), "other", out)


def _publication_date(meta: ET.Element) -> dt.date | None:
    dates = {(d.get("pub-type") or d.get("date-type") or ""): d for d in meta.findall("pub-date")}
    for pub_type in (*_DATE_PREFERENCE, *dates):
        found = dates.get(pub_type)
        if found is not None:
            parsed = date_from_parts(found.findtext("year"), found.findtext("month"), found.findtext("day"))
            if parsed:
                return parsed
    return None


def _metadata(root: ET.Element, meta: ET.Element) -> dict[str, Any]:
    ids = {(a.get("pub-id-type") or "id"): (a.text or "").strip() for a in meta.findall("article-id")}
    journal = element_text(root.find("front/journal-meta/journal-title")) or element_text(
        root.find("front/journal-meta/journal-title-group/journal-title")
    )
    return {
        "pmcid": f"PMC{ids['pmc']}" if ids.get("pmc") else None,
        "pmid": ids.get("pmid"),
        "doi": ids.get("doi"),
        "journal": journal or None,
        "article_type": root.get("article-type"),
        "keywords": [element_text(k) for k in meta.iter("kwd")],
        "subjects": [element_text(s) for s in meta.iter("subject")],
    }


def jats_document(root: ET.Element, path: Path) -> Document:
    """The document of one parsed ``<article>``; :class:`ParseError` when it has no front matter."""
    if local_name(root.tag) != "article":
        raise ParseError(path, f"/{local_name(root.tag)}", "root element is not <article>")
    meta = root.find("front/article-meta")
    if meta is None:
        raise ParseError(path, "/article/front/article-meta", "missing article metadata")
    out = _Collected()
    for abstract in meta.findall("abstract"):
        _walk_abstract(abstract, out)
    body = root.find("body")
    if body is not None:
        _walk_body(body, out)
    floats = root.find("floats-group")
    if floats is not None:
        _collect_floats(floats, (), "other", out)
    metadata = _metadata(root, meta)
    doc_id = metadata["pmcid"] or path.name.removesuffix(".nxml")
    title = element_text(meta.find("title-group/article-title"), _NON_PROSE)
    sections = [*out.sections, *out.figures]
    return assemble_document(
        doc_id=doc_id,
        title=title,
        source="pmc",
        doc_type=root.get("article-type") or "article",
        url=f"https://www.ncbi.nlm.nih.gov/pmc/articles/{doc_id}/" if metadata["pmcid"] else None,
        publication_date=_publication_date(meta),
        sections=sections,
        tables=out.tables,
        metadata={**metadata, "file": path.name},
        identifiers=(
            metadata["pmcid"],
            metadata["pmid"],
            metadata["doi"],
            *study_names(title),
            *registered_study_names(prose(sections)),
        ),
    )


def iter_jats(path: Path | str) -> Iterator[Document | ParseError]:
    """The article in one ``.nxml`` file, or a :class:`ParseError` saying where the XML is broken."""
    path = Path(path)
    try:
        root = parse_root(path)
    except ET.ParseError as error:
        yield ParseError(path, error_location(error), f"malformed XML: {error}")
        return
    except XmlRefusedError as error:
        yield ParseError(path, error.location, error.reason)
        return
    except OSError as error:
        yield ParseError(path, "file", f"unreadable: {error}")
        return
    try:
        yield jats_document(root, path)
    except ParseError as error:
        yield error


def parse_jats(path: Path | str) -> Iterator[Document]:
    """Strict :func:`iter_jats`: raises the :class:`ParseError` instead of yielding it."""
    return raise_errors(iter_jats(path))
