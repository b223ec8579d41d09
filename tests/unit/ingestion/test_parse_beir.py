from __future__ import annotations

import json
from pathlib import Path

import pytest

from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers.beir import iter_beir, parse_beir


@pytest.mark.parametrize(("dataset", "expected"), [("nfcorpus", 3633), ("scifact", 5183)])
def test_corpus_parses_completely(datasets: Path, dataset: str, expected: int) -> None:
    items = list(iter_beir(datasets / dataset / "corpus.jsonl"))
    assert not [item for item in items if isinstance(item, ParseError)]
    assert len(items) == expected
    assert len({item.doc_id for item in items if isinstance(item, Document)}) == expected


def test_nfcorpus_record_fields(datasets: Path) -> None:
    first = next(parse_beir(datasets / "nfcorpus" / "corpus.jsonl"))
    assert first.doc_id == "MED-10"
    assert first.source == "beir"
    assert first.url == "http://www.ncbi.nlm.nih.gov/pubmed/25329299"
    assert first.metadata["dataset"] == "nfcorpus"
    (abstract,) = first.sections
    assert first.text == f"{first.title}\n\n{first.span_text(abstract)}"
    assert first.span_text(abstract).startswith("Recent studies have suggested that statins")


def test_bad_line_is_reported_and_the_rest_come_through(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    lines = [
        json.dumps({"_id": "a", "title": "First", "text": "Alpha."}),
        '{"_id": "b", "title": "Broken',
        json.dumps({"title": "No id"}),
        "",
        json.dumps({"_id": 7, "title": "Numeric id", "text": "Gamma.", "metadata": {}}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = list(iter_beir(path))
    assert [i.doc_id for i in items if isinstance(i, Document)] == ["a", "7"]
    errors = [i for i in items if isinstance(i, ParseError)]
    assert [(e.path, e.location) for e in errors] == [(path, "line 2"), (path, "line 3")]
    assert "invalid JSON" in errors[0].reason
    with pytest.raises(ParseError):
        list(parse_beir(path))


def test_empty_text_keeps_the_title(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"_id": "x", "title": "Only a title", "text": ""}) + "\n", encoding="utf-8")
    (document,) = list(parse_beir(path))
    assert document.text == "Only a title"
    assert document.sections == ()
