"""Hostile XML (issue 50 item 4): a document whose DTD declares entities (a billion-laughs document of
3 levels, an external entity pointing at a local file) is refused as a ParseError naming the reason by
the JATS, ClinicalTrials.gov and MEDLINE parsers: nothing expanded, the local file never read. A
DOCTYPE without an internal subset (what PMC, ClinicalTrials.gov and MEDLINE files carry) still parses.
Real files written to tmp_path."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import iter_documents
from control_plane.ingestion.parsers.ctgov import iter_ctgov
from control_plane.ingestion.parsers.jats import iter_jats
from control_plane.ingestion.parsers.medline import iter_medline

SECRET = "host-secret-7f3a"
LAUGHS = (
    '  <!ENTITY lol "lol">\n'
    '  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n'
    '  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">\n'
    '  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">\n'
)
REFUSED = "entity declarations are not accepted"


def _jats(root: str, text: str) -> str:
    return (
        f'<{root} article-type="research-article"><front><article-meta>'
        '<article-id pub-id-type="pmc">PMC42</article-id>'
        f"<title-group><article-title>Title {text}</article-title></title-group></article-meta></front>"
        f"<body><sec><title>Introduction</title><p>Body {text}</p></sec></body></{root}>\n"
    )


def _ctgov(root: str, text: str) -> str:
    return (
        f"<{root}><id_info><nct_id>NCT00000042</nct_id></id_info><brief_title>Title {text}</brief_title>"
        f"<brief_summary><textblock>Summary {text}</textblock></brief_summary></{root}>\n"
    )


def _medline(root: str, text: str) -> str:
    return (
        f"<{root}><PubmedArticle><MedlineCitation><PMID>42</PMID><Article>"
        f"<ArticleTitle>Title {text}</ArticleTitle><Abstract><AbstractText>Body {text}</AbstractText>"
        f"</Abstract></Article></MedlineCitation></PubmedArticle></{root}>\n"
    )


Parser = Callable[[Path], Iterator[Document | ParseError]]
Shape = tuple[str, str, Callable[[str, str], str], Parser]
SHAPES: dict[str, Shape] = {
    "jats": ("article", "article.nxml", _jats, iter_jats),
    "ctgov": ("clinical_study", "NCT00000042.xml", _ctgov, iter_ctgov),
    "medline": ("PubmedArticleSet", "pubmed.xml", _medline, iter_medline),
    "medline-gz": ("PubmedArticleSet", "pubmed.xml.gz", _medline, iter_medline),
}


def _write(path: Path, text: str) -> Path:
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def _document(tmp_path: Path, shape: str, subset: str, text: str) -> tuple[Path, Parser]:
    root, name, body, parser = SHAPES[shape]
    doctype = f"<!DOCTYPE {root} [\n{subset}]>\n" if subset else ""
    path = _write(tmp_path / name, f'<?xml version="1.0"?>\n{doctype}{body(root, text)}')
    return path, parser


def _only_error(items: list[Document | ParseError]) -> ParseError:
    assert not [i for i in items if isinstance(i, Document)], "a document was built: entities were expanded"
    [error] = items
    assert isinstance(error, ParseError)
    return error


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_billion_laughs_document_is_refused_not_expanded(tmp_path: Path, shape: str) -> None:
    path, parser = _document(tmp_path, shape, LAUGHS, "&lol3;")
    error = _only_error(list(parser(path)))
    assert error.path == path
    assert REFUSED in error.reason and "'lol'" in error.reason
    assert error.line == 3 and error.location.startswith("line 3, column ")  # the first declaration
    assert "lol" * 10 not in str(error)
    # The same through the dispatcher the ingest run uses (file type by suffix or root element).
    assert [str(e) for e in iter_documents(path)] == [str(error)]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_an_external_entity_on_a_local_file_is_refused_and_the_file_never_read(
    tmp_path: Path, shape: str
) -> None:
    local = tmp_path / "hostname"
    local.write_text(SECRET + "\n", encoding="utf-8")
    subset = f'  <!ENTITY host SYSTEM "file://{local}">\n'
    path, parser = _document(tmp_path, shape, subset, "&host;")
    error = _only_error(list(parser(path)))
    assert REFUSED in error.reason and "external entity 'host'" in error.reason
    assert f"file://{local}" in error.reason and "not read" in error.reason
    assert SECRET not in str(error)


@pytest.mark.parametrize("shape", ["jats", "medline"])
def test_an_external_parameter_entity_is_refused(tmp_path: Path, shape: str) -> None:
    local = tmp_path / "evil.dtd"
    local.write_text(f'<!ENTITY leaked "{SECRET}">\n', encoding="utf-8")
    path, parser = _document(tmp_path, shape, f'  <!ENTITY % ext SYSTEM "file://{local}">\n  %ext;\n', "x")
    error = _only_error(list(parser(path)))
    assert REFUSED in error.reason and "'ext'" in error.reason
    assert SECRET not in str(error)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_doctype_without_declarations_still_parses(tmp_path: Path, shape: str) -> None:
    root, name, body, parser = SHAPES[shape]
    doctype = f'<!DOCTYPE {root} PUBLIC "-//NLM//DTD Test//EN" "https://example.invalid/test.dtd">\n'
    path = _write(tmp_path / name, f'<?xml version="1.0"?>\n{doctype}{body(root, "&amp; plain")}')
    [document] = list(parser(path))
    assert isinstance(document, Document), document
    assert document.title == "Title & plain"


def test_a_syntax_error_is_still_reported_as_malformed_xml_with_its_place(tmp_path: Path) -> None:
    path = _write(tmp_path / "broken.nxml", '<?xml version="1.0"?>\n<article><front></article>\n')
    [error] = list(iter_jats(path))
    assert isinstance(error, ParseError)
    assert error.reason.startswith("malformed XML: mismatched tag")
    assert error.location == "line 2, column 19"  # as the C parser reports it
