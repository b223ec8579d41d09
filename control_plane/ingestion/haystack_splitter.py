"""Chunking strategies that run Haystack 2's DocumentSplitter per section (`pip install .[haystack]`):
``haystack-sentence``, ``haystack-word`` and ``haystack-passage``. Haystack's splits are mapped back to
exact offsets (its ``split_idx_start``), so ``text[start:end] == chunk text`` holds as for every strategy.

- sentence: DocumentSplitter's ``period`` unit (its own rule: split after "."), 3 per chunk. Its
  ``sentence`` unit needs NLTK's punkt data, which no registry reachable here carries (PyPI's
  nltk-punkt is a 1.2 kB downloader), so it cannot run offline;
- word: ``token_budget / 1.5`` words per chunk (biomedical text runs about 1.5 model tokens a word),
  ``overlap_pct`` of them shared with the next chunk;
- passage: one blank-line separated passage per chunk.
A split still over the token budget (a long passage) is packed by sentences inside itself, as the
``paragraph`` strategy does, because the encoder reads no further than the budget.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any, Final, Literal

from control_plane.errors import BiohybridError
from control_plane.ingestion.documents import Section
from control_plane.ingestion.spans import SegmentIndex, Span, pack_sentences

Unit = Literal["period", "word", "passage"]
CHUNKER: Final = "haystack.DocumentSplitter"
SENTENCES_PER_CHUNK: Final = 3
TOKENS_PER_WORD: Final = 1.5
HAYSTACK_STRATEGIES: Final[dict[str, Unit]] = {
    "haystack-sentence": "period",
    "haystack-word": "word",
    "haystack-passage": "passage",
}


class HaystackMissingError(BiohybridError, ImportError):
    """The haystack extra is not installed; the message says how to install it."""


def _haystack() -> Any:
    # Haystack reports usage to PostHog unless told not to; this stack runs where nothing else is reachable.
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
    try:
        import haystack
        from haystack.components.preprocessors import DocumentSplitter
    except ImportError:
        raise HaystackMissingError(
            "the haystack-* chunking strategies need Haystack 2: pip install '.[haystack]'"
        ) from None
    return haystack, DocumentSplitter


def split_settings(unit: Unit, token_budget: int, overlap_pct: float) -> tuple[int, int]:
    """(split_length, split_overlap) in the unit's own counts."""
    if unit == "word":
        length = max(1, int(token_budget / TOKENS_PER_WORD))
        return length, min(length - 1, round(length * overlap_pct / 100))
    if unit == "period":
        return SENTENCES_PER_CHUNK, 0
    return 1, 0


@cache
def _splitter(unit: Unit, length: int, overlap: int) -> Any:
    _, document_splitter = _haystack()
    splitter = document_splitter(split_by=unit, split_length=length, split_overlap=overlap)
    splitter.warm_up()
    return splitter


def haystack_version() -> str:
    haystack, _ = _haystack()
    return str(getattr(haystack, "__version__", "2"))


def splits(text: str, unit: Unit, length: int, overlap: int) -> list[tuple[int, str]]:
    """Haystack's splits of ``text``: (offset of the split in ``text``, split content)."""
    haystack, _ = _haystack()
    answer = _splitter(unit, length, overlap).run(documents=[haystack.Document(content=text)])
    return [(int(d.meta["split_idx_start"]), str(d.content)) for d in answer["documents"]]


def haystack_planner(unit: Unit) -> Callable[[str, Section, SegmentIndex, Any], list[Span]]:
    """A chunking.SpanPlanner running DocumentSplitter on each section."""

    def plan(text: str, section: Section, index: SegmentIndex, params: Any) -> list[Span]:
        length, overlap = split_settings(unit, params.token_budget, params.overlap_pct)
        spans: list[Span] = []
        for offset, content in splits(text[section.start : section.end], unit, length, overlap):
            start = section.start + offset
            if text[start : start + len(content)] != content:
                raise ValueError(
                    f"Haystack split at {start} does not match the section text (haystack-{unit})"
                )
            span = _trimmed(text, start, start + len(content))
            if span is None:
                continue
            if index.tokens(*span) <= params.token_budget:
                spans.append(span)
            else:
                spans.extend(pack_sentences(text, *span, index, params.token_budget))
        return spans

    return plan


def _trimmed(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None
