"""BEIR ``corpus.jsonl`` (NFCorpus, SciFact): one JSON object per line with ``_id``, ``title``, ``text``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from control_plane.ingestion.assembly import SectionDraft, assemble_document
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError, raise_errors
from control_plane.json_bodies import lone_surrogate


def beir_document(record: dict[str, Any], dataset: str) -> Document:
    """One corpus record as a document with a single abstract section (ids kept verbatim for qrels)."""
    metadata = record.get("metadata") or {}
    url = metadata.get("url") if isinstance(metadata, dict) else None
    text = record.get("text") or ""
    return assemble_document(
        doc_id=str(record["_id"]),
        title=str(record.get("title") or ""),
        source="beir",
        doc_type="abstract",
        url=url if isinstance(url, str) and url else None,
        publication_date=None,
        sections=[SectionDraft("Abstract", "abstract", ("Abstract",), (str(text),))],
        metadata={"dataset": dataset, **(metadata if isinstance(metadata, dict) else {})},
    )


def iter_beir(path: Path | str, dataset: str | None = None) -> Iterator[Document | ParseError]:
    """Documents of a BEIR corpus file; a bad line yields a :class:`ParseError` and the rest go on.

    Each line is read as bytes and decoded on its own, so an invalid UTF-8 byte, malformed JSON or a
    record without ``_id`` costs that line only (``line N`` with the reason), never its neighbours.
    ``dataset`` defaults to the folder name (``nfcorpus``, ``scifact``).
    """
    path = Path(path)
    dataset = dataset or path.parent.name
    try:
        with path.open("rb") as lines:
            for line_number, raw in enumerate(lines, start=1):
                item = _line_item(path, line_number, raw, dataset)
                if item is not None:
                    yield item
    except OSError as error:
        yield ParseError(path, "file", f"unreadable: {error}")


def _line_item(path: Path, line_number: int, raw: bytes, dataset: str) -> Document | ParseError | None:
    """The document of one line, its :class:`ParseError`, or None for a blank line."""
    where = f"line {line_number}"
    try:
        # A byte-order mark may open the file (utf-8-sig); anywhere else it is a character like any other.
        line = raw.decode("utf-8-sig" if line_number == 1 else "utf-8")
    except UnicodeDecodeError as error:
        return ParseError(
            path, where, f"invalid UTF-8: byte 0x{raw[error.start]:02x} at column {error.start + 1}"
        )
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        return ParseError(path, where, f"invalid JSON: {error.msg} (column {error.pos + 1})")
    if not isinstance(record, dict) or not isinstance(record.get("_id"), str | int):
        return ParseError(path, where, "record has no string _id")
    if "\\ud" in line.lower() and lone_surrogate(record) is not None:  # the bulk batch would fail
        return ParseError(path, where, "a text holds a lone surrogate (a \\ud800-\\udfff escape): not UTF-8")
    return beir_document(record, dataset)


def parse_beir(path: Path | str, dataset: str | None = None) -> Iterator[Document]:
    """Strict :func:`iter_beir`: raises the first :class:`ParseError`."""
    return raise_errors(iter_beir(path, dataset))
