"""A BEIR JSONL file with broken lines (issue 50 item 4): an invalid UTF-8 byte, malformed JSON, a lone
surrogate escape cost their own line only (a ParseError with the line number and the reason); every
valid line around them is parsed. Real files written to tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import iter_documents
from control_plane.ingestion.parsers.beir import iter_beir


def _line(doc_id: str, title: str) -> bytes:
    return json.dumps({"_id": doc_id, "title": title, "text": f"{title} text."}).encode("utf-8") + b"\n"


def _split(items: list[Document | ParseError]) -> tuple[list[str], list[ParseError]]:
    return (
        [i.doc_id for i in items if isinstance(i, Document)],
        [i for i in items if isinstance(i, ParseError)],
    )


def test_an_invalid_utf8_byte_costs_its_line_only(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    bad = b'{"_id": "bad", "title": "Caf\xe9 au lait", "text": "latin-1, not UTF-8"}\n'
    path.write_bytes(_line("a", "Aspirin") + bad + _line("c", "Statins") + _line("d", "Metformin"))
    documents, errors = _split(list(iter_beir(path)))
    assert documents == ["a", "c", "d"]
    [error] = errors
    assert (error.path, error.location, error.line) == (path, "line 2", 2)
    assert error.reason == "invalid UTF-8: byte 0xe9 at column 29"


def test_every_kind_of_broken_line_is_reported_in_place(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(
        _line("a", "First")
        + b"\xff\xfe not even text\n"
        + b'{"_id": "cut", "title": \n'
        + b'{"_id": "sur", "title": "x", "text": "\\ud800 alone"}\n'
        + b"\n"
        + b"[1, 2]\n"
        + _line("z", "Last")
    )
    documents, errors = _split(list(iter_beir(path)))
    assert documents == ["a", "z"]
    assert [(e.line, e.reason.split(":")[0]) for e in errors] == [
        (2, "invalid UTF-8"),
        (3, "invalid JSON"),
        (4, "a text holds a lone surrogate (a \\ud800-\\udfff escape)"),
        (6, "record has no string _id"),
    ]


def test_a_byte_order_mark_opens_the_file_without_costing_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + _line("a", "First") + _line("b", "Second"))
    assert _split(list(iter_beir(path))) == (["a", "b"], [])


def test_the_dispatcher_streams_the_same_lines(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    path = folder / "corpus.jsonl"
    path.write_bytes(_line("a", "One") + b'{"_id": "b", "title": "\x80"}\n' + _line("c", "Three"))
    documents, errors = _split(list(iter_documents([folder])))
    assert documents == ["a", "c"]
    assert [(e.path, e.location) for e in errors] == [(path, "line 2")]
