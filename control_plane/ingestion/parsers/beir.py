"""BEIR ``corpus.jsonl`` (NFCorpus, SciFact): one JSON object per line with ``_id``, ``title``, ``text``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from control_plane.ingestion.assembly import SectionDraft, assemble_document
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError, raise_errors


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

    ``dataset`` defaults to the folder name (``nfcorpus``, ``scifact``).
    """
    path = Path(path)
    dataset = dataset or path.parent.name
    try:
        with path.open(encoding="utf-8") as lines:
            for line_number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    yield ParseError(path, f"line {line_number}", f"invalid JSON: {error.msg}")
                    continue
                if not isinstance(record, dict) or not isinstance(record.get("_id"), str | int):
                    yield ParseError(path, f"line {line_number}", "record has no string _id")
                    continue
                yield beir_document(record, dataset)
    except (OSError, UnicodeDecodeError) as error:
        yield ParseError(path, "file", f"unreadable: {error}")


def parse_beir(path: Path | str, dataset: str | None = None) -> Iterator[Document]:
    """Strict :func:`iter_beir`: raises the first :class:`ParseError`."""
    return raise_errors(iter_beir(path, dataset))
