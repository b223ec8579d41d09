"""PubMed / MEDLINE citation files (``.xml`` or ``.xml.gz``), streamed record by record.

Baseline files hold ~30,000 citations each, so records are parsed incrementally with
``XMLPullParser`` (the engine behind ``iterparse``) and cleared once turned into documents. Driving the
pull parser ourselves, rather than calling ``iterparse``, lets a syntax error in one citation be
reported with its line and the last good PMID and then skipped: parsing resumes at the next
``<PubmedArticle>`` with a fresh parser, so the good citations after a broken one still come through.
A truncated file yields every complete citation and then one error.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from control_plane.ingestion.assembly import SectionDraft, assemble_document, prose
from control_plane.ingestion.dates import date_from_parts, parse_loose_date
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError, raise_errors
from control_plane.ingestion.parsers.safe_xml import REFUSALS, XmlRefusedError, refused, safe_pull_parser
from control_plane.ingestion.parsers.study_names import registered_study_names, study_names
from control_plane.ingestion.parsers.xml_text import element_text, open_binary
from control_plane.ingestion.section_kinds import classify_heading

_RECORD_TAGS = frozenset({"PubmedArticle", "PubmedBookArticle"})
_RECORD_START = re.compile(rb"<Pubmed(?:Book)?Article[\s>]")
_RESYNC_ROOT = b"<PubmedArticleSet>"
_BLOCK_BYTES = 1 << 16  # small blocks keep the parsed-but-unread tree cache-friendly
_RESYNC_TAIL_BYTES = 64


@dataclass(frozen=True)
class _SyntaxProblem:
    line: int
    column: int
    message: str


def _end_event_parser() -> ET.XMLPullParser[ET.Element]:
    """A pull parser with entity expansion off (safe_xml.py): a file declaring entities is refused."""
    return safe_pull_parser(("end",))


def _offset_after_lines(data: bytes, lines: int) -> int:
    """Byte offset just past the ``lines``-th newline of ``data`` (0 for none, ``len`` when it has fewer)."""
    offset = 0
    for _ in range(lines):
        newline = data.find(b"\n", offset)
        if newline < 0:
            return len(data)
        offset = newline + 1
    return offset


def _record_elements(stream: io.BufferedIOBase) -> Iterator[ET.Element | _SyntaxProblem | XmlRefusedError]:
    """Completed record elements in file order; after a syntax error, resume at the next record start.
    A file whose DTD declares entities ends with one :class:`XmlRefusedError` (nothing expanded).

    Reads fixed-size blocks (line-by-line reading of gzip is several times slower) and tracks lines
    by counting newlines, so errors carry the line they happened on.
    """
    parser: ET.XMLPullParser[ET.Element] | None = _end_event_parser()
    base_line = 0  # the current parser's line 1 is absolute line base_line + 1
    next_chunk_line = 1
    carry, carry_line = b"", 1  # unscanned tail kept while looking for a record start
    while chunk := stream.read(_BLOCK_BYTES):
        data, data_line = (carry + chunk, carry_line) if carry else (chunk, next_chunk_line)
        next_chunk_line += chunk.count(b"\n")
        carry = b""
        while data:
            if parser is None:
                match = _RECORD_START.search(data)
                if match is None:
                    carry = data[-_RESYNC_TAIL_BYTES:]
                    carry_line = data_line + data.count(b"\n", 0, len(data) - len(carry))
                    break
                data_line += data.count(b"\n", 0, match.start())
                data = data[match.start() :]
                parser = _end_event_parser()
                base_line = data_line - 1
                parser.feed(_RESYNC_ROOT)
            try:
                parser.feed(data)
            except REFUSALS as error:
                refusal = refused(error, parser)
                yield XmlRefusedError(refusal.reason, base_line + refusal.line, refusal.column)
                return
            try:
                for event in parser.read_events():
                    element = event[-1]
                    if isinstance(element, ET.Element) and element.tag in _RECORD_TAGS:
                        yield element
            except ET.ParseError as error:
                line, column = error.position
                yield _SyntaxProblem(base_line + line, column + 1, str(error))
                parser = None
                offset = _offset_after_lines(data, base_line + line - data_line + 1)
                data_line += data.count(b"\n", 0, offset)
                data = data[offset:]
                continue
            data = b""
    if parser is not None:
        try:
            parser.close()
        except ET.ParseError as error:
            line, column = error.position
            yield _SyntaxProblem(base_line + line, column + 1, f"truncated or unterminated file: {error}")


def _title_case(label: str) -> str:
    return label.title() if label.isupper() else label


def _abstract_sections(article: ET.Element) -> list[SectionDraft]:
    """One section per labelled ``AbstractText``; unlabelled parts share one ``Abstract`` section."""
    sections: list[SectionDraft] = []
    unlabelled: list[str] = []
    for part in article.findall("Abstract/AbstractText"):
        text = element_text(part)
        label = _title_case((part.get("Label") or "").strip())
        if not label:
            unlabelled.append(text)
            continue
        category = part.get("NlmCategory") or ""
        kind = classify_heading(category) if category and category != "UNASSIGNED" else "other"
        if kind == "other":
            kind = classify_heading(label)
        sections.append(
            SectionDraft(label, "abstract" if kind == "other" else kind, ("Abstract", label), (text,))
        )
    if unlabelled:
        sections.insert(0, SectionDraft("Abstract", "abstract", ("Abstract",), tuple(unlabelled)))
    return sections


def _publication_date(article: ET.Element) -> dt.date | None:
    pub_date = article.find("Journal/JournalIssue/PubDate")
    if pub_date is not None:
        medline_date = pub_date.findtext("MedlineDate")
        season = pub_date.findtext("Season")
        parsed = (
            parse_loose_date(medline_date)
            if medline_date
            else date_from_parts(
                pub_date.findtext("Year"), pub_date.findtext("Month") or season, pub_date.findtext("Day")
            )
        )
        if parsed:
            return parsed
    electronic = article.find("ArticleDate")
    if electronic is not None:
        return date_from_parts(
            electronic.findtext("Year"), electronic.findtext("Month"), electronic.findtext("Day")
        )
    return None


def _mesh_terms(citation: ET.Element) -> list[dict[str, Any]]:
    return [
        {
            "descriptor": element_text(heading.find("DescriptorName")),
            "major": heading.find("DescriptorName[@MajorTopicYN='Y']") is not None
            or heading.find("QualifierName[@MajorTopicYN='Y']") is not None,
            "qualifiers": [element_text(q) for q in heading.findall("QualifierName")],
        }
        for heading in citation.findall("MeshHeadingList/MeshHeading")
    ]


def medline_document(record: ET.Element) -> Document:
    """One ``<PubmedArticle>`` or ``<PubmedBookArticle>`` as a document; ``ValueError`` without a PMID."""
    citation = record.find("MedlineCitation")
    if citation is None:
        citation = record.find("BookDocument")
    if citation is None:
        raise ValueError(f"<{record.tag}> has neither MedlineCitation nor BookDocument")
    pmid = (citation.findtext("PMID") or "").strip()
    if not pmid:
        raise ValueError("citation has no PMID")
    article = citation.find("Article")
    if article is None:
        article = citation
    title = element_text(article.find("ArticleTitle")) or element_text(article.find("VernacularTitle"))
    mesh = _mesh_terms(citation)
    sections = _abstract_sections(article)
    doi = record.findtext("PubmedData/ArticleIdList/ArticleId[@IdType='doi']") or article.findtext(
        "ELocationID[@EIdType='doi']"
    )
    pmcid = record.findtext("PubmedData/ArticleIdList/ArticleId[@IdType='pmc']")
    return assemble_document(
        doc_id=pmid,
        title=title,
        source="medline",
        doc_type="citation",
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
        publication_date=_publication_date(article),
        sections=sections,
        metadata={
            "pmid": pmid,
            "doi": doi,
            "pmcid": pmcid,
            "journal": element_text(article.find("Journal/Title")) or None,
            "journal_abbreviation": citation.findtext("MedlineJournalInfo/MedlineTA"),
            "language": article.findtext("Language"),
            "publication_types": [
                element_text(t) for t in article.findall("PublicationTypeList/PublicationType")
            ],
            "mesh_terms": [term["descriptor"] for term in mesh],
            "mesh_headings": mesh,
            "keywords": [element_text(k) for k in citation.findall("KeywordList/Keyword")],
            "chemicals": [element_text(c) for c in citation.findall("ChemicalList/Chemical/NameOfSubstance")],
            "vernacular_title": element_text(article.find("VernacularTitle")) or None,
        },
        identifiers=(pmid, pmcid, doi, *study_names(title), *registered_study_names(prose(sections))),
    )


def iter_medline(path: Path | str) -> Iterator[Document | ParseError]:
    """Citations of one PubMed XML file in order; broken ones are yielded as :class:`ParseError`.

    Locations name the record index (0-based, counting broken records), the PMID when known, and for
    syntax errors the line and the last good PMID before it.
    """
    path = Path(path)
    record_index, last_pmid = 0, "none"
    try:
        with open_binary(path) as stream:
            for item in _record_elements(stream):
                if isinstance(item, XmlRefusedError):
                    yield ParseError(path, item.location, item.reason)
                    return
                if isinstance(item, _SyntaxProblem):
                    where = f"record #{record_index} (after PMID {last_pmid}), line {item.line}"
                    yield ParseError(path, f"{where}, column {item.column}", f"malformed XML: {item.message}")
                    record_index += 1
                    continue
                try:
                    document = medline_document(item)
                except ValueError as error:
                    yield ParseError(path, f"record #{record_index} (after PMID {last_pmid})", str(error))
                else:
                    last_pmid = document.doc_id
                    yield document
                finally:
                    item.clear()
                record_index += 1
    except (OSError, EOFError) as error:
        yield ParseError(path, f"record #{record_index} (after PMID {last_pmid})", f"unreadable: {error}")


def parse_medline(path: Path | str) -> Iterator[Document]:
    """Strict :func:`iter_medline`: raises the first :class:`ParseError`."""
    return raise_errors(iter_medline(path))
