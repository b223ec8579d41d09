from __future__ import annotations

import gzip
from collections import Counter
from itertools import islice
from pathlib import Path

import pytest

from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import dataset_files, medline
from control_plane.ingestion.parsers.medline import iter_medline, parse_medline

CITATIONS_PER_FILE = {"pubmed20n0014.xml.gz": 30_000, "pubmed21n1298.xml.gz": 20_788}

HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE PubmedArticleSet>\n<PubmedArticleSet>\n'
FOOTER = "</PubmedArticleSet>\n"


def citation(pmid: str, title: str, *, abstract: str = "") -> str:
    pmid_element = f'      <PMID Version="1">{pmid}</PMID>\n' if pmid else ""
    return (
        "  <PubmedArticle>\n"
        '    <MedlineCitation Status="MEDLINE" Owner="NLM">\n'
        f"{pmid_element}"
        '      <Article PubModel="Print">\n'
        "        <Journal><JournalIssue><PubDate><Year>2001</Year><Month>Mar</Month></PubDate>"
        "</JournalIssue><Title>J Test</Title></Journal>\n"
        f"        <ArticleTitle>{title}</ArticleTitle>\n"
        f"{abstract}"
        "      </Article>\n"
        "    </MedlineCitation>\n"
        "  </PubmedArticle>\n"
    )


def write(path: Path, body: str) -> Path:
    data = (HEADER + body + FOOTER).encode("utf-8")
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return path


def test_both_baseline_files_parse_completely(datasets: Path) -> None:
    files = dataset_files("medline", datasets)
    assert [f.name for f in files] == sorted(CITATIONS_PER_FILE)
    for path in files:
        stats: Counter[str] = Counter()
        for item in iter_medline(path):
            assert isinstance(item, Document), item
            stats["citations"] += 1
            stats["titled"] += bool(item.title)
            stats["dated"] += item.publication_date is not None
            stats["offsets_ok"] += all(item.span_text(s) for s in item.sections)
        expected = CITATIONS_PER_FILE[path.name]
        assert stats["citations"] == expected
        assert stats["titled"] >= 0.995 * expected
        assert stats["dated"] == expected
        assert stats["offsets_ok"] == expected


def test_structured_abstract_labels_become_sections(datasets: Path) -> None:
    first = next(parse_medline(datasets / "medline" / "pubmed21n1298.xml.gz"))
    assert first.doc_id == "10704411"
    assert first.url == "https://pubmed.ncbi.nlm.nih.gov/10704411/"
    assert first.title.startswith("Dopamine modulates acute responses to cocaine")
    assert [(s.title_path, s.kind) for s in first.sections] == [
        (("Abstract", "Background"), "background"),
        (("Abstract", "Results"), "results"),
        (("Abstract", "Conclusions"), "conclusions"),
    ]
    assert first.metadata["journal"] == "Current biology : CB"
    assert "Dopamine" in first.metadata["mesh_terms"]
    assert str(first.publication_date) == "2000-02-24"


def test_citation_without_abstract_has_only_a_title(datasets: Path) -> None:
    path = datasets / "medline" / "pubmed20n0014.xml.gz"
    untitled_abstract = next(d for d in islice(parse_medline(path), 200) if not d.sections)
    assert untitled_abstract.text == untitled_abstract.title


@pytest.mark.parametrize("block_bytes", [37, 1 << 16])
def test_broken_citations_are_reported_and_the_rest_come_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_bytes: int
) -> None:
    # Tiny blocks split tags and lines across reads, exercising the resynchronisation bookkeeping.
    monkeypatch.setattr(medline, "_BLOCK_BYTES", block_bytes)
    body = (
        citation("1", "First good citation.")
        + citation("", "Citation that lost its PMID.")
        + citation("2", "Second good citation.")
        + citation("3", "Broken <i>markup</b> in the title.")
        + citation("4", "Third good citation.")
        + citation("5", "Fourth good citation.")
    )
    for name in ("broken.xml", "broken.xml.gz"):
        path = write(tmp_path / name, body)
        items = list(iter_medline(path))
        documents = [i for i in items if isinstance(i, Document)]
        errors = [i for i in items if isinstance(i, ParseError)]
        assert [d.doc_id for d in documents] == ["1", "2", "4", "5"]
        assert [e.path for e in errors] == [path, path]
        assert errors[0].location == "record #1 (after PMID 1)"
        assert "no PMID" in errors[0].reason
        assert errors[1].location.startswith("record #3 (after PMID 2), line 35, column")
        assert "mismatched tag" in errors[1].reason


def test_truncated_file_yields_complete_citations_then_an_error(tmp_path: Path) -> None:
    text = HEADER + citation("1", "Complete.") + citation("2", "Complete too.") + citation("3", "Cut")[:120]
    path = tmp_path / "truncated.xml"
    path.write_text(text, encoding="utf-8")
    items = list(iter_medline(path))
    assert [i.doc_id for i in items if isinstance(i, Document)] == ["1", "2"]
    (error,) = [i for i in items if isinstance(i, ParseError)]
    assert error.location.startswith("record #2 (after PMID 2), line")
    assert "truncated" in error.reason
    with pytest.raises(ParseError):
        list(parse_medline(path))


def test_labelled_abstract_parts_get_kinds(tmp_path: Path) -> None:
    abstract = (
        "<Abstract>"
        '<AbstractText Label="OBJECTIVE" NlmCategory="OBJECTIVE">To test.</AbstractText>'
        '<AbstractText Label="PATIENTS AND METHODS" NlmCategory="METHODS">We tested.</AbstractText>'
        '<AbstractText Label="ADVERSE EVENTS" NlmCategory="UNASSIGNED">None seen.</AbstractText>'
        "</Abstract>\n"
    )
    path = write(tmp_path / "labelled.xml", citation("9", "Labelled.", abstract=abstract))
    (document,) = list(parse_medline(path))
    assert [(s.label, s.kind) for s in document.sections] == [
        ("Objective", "background"),
        ("Patients And Methods", "methods"),
        ("Adverse Events", "adverse_events"),
    ]
    assert document.text == "Labelled.\n\nTo test.\n\nWe tested.\n\nNone seen."
