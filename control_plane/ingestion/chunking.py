"""Turn a :class:`Document` into index-ready :class:`Chunk` records with a named strategy.

Strategies (``chunk(document, name)``), all working inside one section at a time so every chunk has one
section, kind and intent:

* ``section`` -- a section is one chunk; a section over the token budget is split at sentence
  boundaries into the fewest parts the budget allows, balanced so the largest is as small as possible;
* ``paragraph`` -- one chunk per blank-line separated paragraph; an over-budget paragraph is packed by
  sentences;
* ``sentence`` -- whole sentences greedily packed up to the token budget, so chunks fill the budget
  (a section under budget is still one chunk, as with ``section``);
* ``sliding_window`` -- windows of ``token_budget`` tokens, consecutive windows sharing ``overlap_pct``
  percent of a window, cut at word boundaries;
* ``haystack-sentence``, ``haystack-word``, ``haystack-passage`` -- Haystack 2's DocumentSplitter per
  section (haystack_splitter.py; the `haystack` extra), provenance ``haystack.DocumentSplitter``.

Tables are never split: each is one chunk (caption line + row lines), whatever the budget. A document
with neither sections nor tables (a title-only citation) yields one chunk for its title.
Each chunk's ``intent_hint`` and ``near_empty`` come from
:func:`~control_plane.clinical.labels.chunk_intent` over the chunk's own text (so with the sentence
strategy only the chunks that state a dose become ``dosage``), and every chunk carries the document's
``identifiers``.
Every chunk satisfies ``document.text[chunk.start:chunk.end] == chunk.text``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

from control_plane.clinical.labels import IntentHint, chunk_intent, is_near_empty
from control_plane.ingestion.documents import Document, Section, Table
from control_plane.ingestion.haystack_splitter import (
    CHUNKER as HAYSTACK_CHUNKER,
)
from control_plane.ingestion.haystack_splitter import (
    HAYSTACK_STRATEGIES,
    haystack_planner,
    haystack_version,
    split_settings,
)
from control_plane.ingestion.layout import span_layout
from control_plane.ingestion.spans import (
    SegmentIndex,
    Span,
    pack_sentences,
    paragraph_spans,
    sliding_windows,
    split_sentences_evenly,
)
from control_plane.ingestion.tokens import TokenCounter, minilm_token_counter
from control_plane.ingestion.topics import record_topics

CHUNKER_NAME: Final = "control_plane.ingestion.chunking"
CHUNKER_VERSION: Final = "2"
"""2: identifiers on every chunk; intents from dose statements, adverse-event outcome measures and
the near-empty rule (``near_empty``)."""
DEFAULT_TOKEN_BUDGET: Final = 254
"""all-MiniLM-L6-v2 reads 256 tokens; the budget excludes [CLS] and [SEP]."""
DEFAULT_OVERLAP_PCT: Final = 20.0
DEFAULT_TENANT: Final = "default"
TITLE_PATH_SEPARATOR: Final = " \u203a "  # single right-pointing angle quotation mark


@dataclass(frozen=True)
class Chunk:
    """One retrievable unit plus everything the index stores alongside it.

    ``content_hash`` is a sha256 over all other fields, so re-ingesting unchanged content is a no-op.
    """

    chunk_id: str
    doc_id: str
    text: str
    start: int
    end: int
    token_count: int
    title_path: str
    section: str
    section_label: str
    intent_hint: IntentHint | None
    is_table: bool
    facet_json: str | None
    table_lines: tuple[str, ...]
    table_html: str | None
    provenance: Mapping[str, str]
    tenant_id: str
    source: str
    doc_type: str
    publication_date: str | None
    identifiers: tuple[str, ...] = ()
    """The document's own identifiers (NCT id, PMID, PMCID, DOI, ...), on every chunk of it."""
    topics: tuple[str, ...] = ()
    """What the document declares it is about (:func:`~control_plane.ingestion.topics.record_topics`),
    on every chunk of it."""
    near_empty: bool = False
    """The chunk holds (almost) nothing of its own (:func:`~control_plane.clinical.labels.is_near_empty`):
    it has no ``intent_hint``, and search-side routing should not lift it (tables included)."""
    layout: Mapping[str, Any] | None = None
    """Where the text sits on its pages (PDF sources): ``{"pages": [...], "boxes": [...]}``, the boxes of
    the lines it overlaps (:mod:`~control_plane.ingestion.layout`); ``None`` for sources without pages."""
    content_hash: str = field(default="")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready fields (tuples become lists). ``layout`` is left out when there is none, so
        the documents (and content hashes) of sources without pages are what they were before it."""
        fields = asdict(self)
        fields["table_lines"] = list(self.table_lines)
        fields["identifiers"] = list(self.identifiers)
        fields["provenance"] = dict(self.provenance)
        if self.topics:
            fields["topics"] = list(self.topics)
        else:  # a source without declared topics keeps the documents (and hashes) it had before them
            del fields["topics"]
        if self.layout is None:
            del fields["layout"]
        else:
            fields["layout"] = json.loads(json.dumps(self.layout))
        return fields


@dataclass(frozen=True)
class ChunkingParams:
    token_budget: int
    overlap_pct: float
    counter: TokenCounter


SpanPlanner = Callable[[str, Section, SegmentIndex, ChunkingParams], list[Span]]


def _plan_section(text: str, section: Section, index: SegmentIndex, params: ChunkingParams) -> list[Span]:
    if index.tokens(section.start, section.end) <= params.token_budget:
        return [(section.start, section.end)]
    return split_sentences_evenly(text, section.start, section.end, index, params.token_budget)


def _plan_paragraph(text: str, section: Section, index: SegmentIndex, params: ChunkingParams) -> list[Span]:
    spans: list[Span] = []
    for start, end in paragraph_spans(text, section.start, section.end):
        if index.tokens(start, end) <= params.token_budget:
            spans.append((start, end))
        else:
            spans.extend(pack_sentences(text, start, end, index, params.token_budget))
    return spans


def _plan_sentence(text: str, section: Section, index: SegmentIndex, params: ChunkingParams) -> list[Span]:
    return pack_sentences(text, section.start, section.end, index, params.token_budget)


def _plan_sliding_window(
    text: str, section: Section, index: SegmentIndex, params: ChunkingParams
) -> list[Span]:
    overlap = round(params.token_budget * params.overlap_pct / 100)
    return sliding_windows(index, section.start, section.end, params.token_budget, overlap)


STRATEGIES: Final[Mapping[str, SpanPlanner]] = {
    "section": _plan_section,
    "paragraph": _plan_paragraph,
    "sentence": _plan_sentence,
    "sliding_window": _plan_sliding_window,
    **{name: haystack_planner(unit) for name, unit in HAYSTACK_STRATEGIES.items()},
}


def provenance(strategy: str, token_budget: int, overlap_pct: float) -> dict[str, str]:
    """What made a chunk: this module's chunker, or Haystack's DocumentSplitter with its settings."""
    unit = HAYSTACK_STRATEGIES.get(strategy)
    if unit is None:
        return {"chunker": CHUNKER_NAME, "strategy": strategy, "version": CHUNKER_VERSION}
    length, overlap = split_settings(unit, token_budget, overlap_pct)
    return {
        "chunker": HAYSTACK_CHUNKER,
        "strategy": strategy,
        "version": haystack_version(),
        "split_by": unit,
        "split_length": str(length),
        "split_overlap": str(overlap),
    }


def content_hash(fields: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the indexed fields (``content_hash`` itself excluded)."""
    payload = {key: value for key, value in fields.items() if key != "content_hash"}
    encoded = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class _ChunkFactory:
    document: Document
    strategy: str
    tenant_id: str
    provenance: Mapping[str, str]
    topics: tuple[str, ...]  # the document's record_topics, read once for all its chunks

    def make(
        self,
        index: int,
        span: Span,
        token_count: int,
        kind: str,
        label: str,
        headings: tuple[str, ...],
        facet_json: str | None,
        table: Table | None = None,
    ) -> Chunk:
        document = self.document
        start, end = span
        text = document.text[start:end]
        near_empty = is_near_empty(kind, text, table.row_lines if table else None)
        intent = chunk_intent(
            kind,
            (*headings, table.caption) if table else headings,
            text,
            parser_intent=table.intent_hint if table else None,
            near_empty=near_empty,
        )
        title_path = TITLE_PATH_SEPARATOR.join(part for part in (document.title, *headings) if part)
        draft = Chunk(
            chunk_id=f"{document.doc_id}:chunk:{index}",
            doc_id=document.doc_id,
            text=text,
            start=start,
            end=end,
            token_count=token_count,
            title_path=title_path,
            section=kind,
            section_label=label,
            intent_hint=intent,
            is_table=table is not None,
            facet_json=facet_json,
            table_lines=table.row_lines if table else (),
            table_html=table.html if table else None,
            provenance=self.provenance,
            tenant_id=self.tenant_id,
            source=document.source,
            doc_type=document.doc_type,
            publication_date=document.publication_date.isoformat() if document.publication_date else None,
            identifiers=document.identifiers,
            topics=self.topics,
            near_empty=near_empty,
            layout=span_layout(document.layout, start, end),
        )
        return replace(draft, content_hash=content_hash(draft.to_dict()))


def chunk(
    document: Document,
    strategy: str,
    *,
    token_budget: int = DEFAULT_TOKEN_BUDGET,
    overlap_pct: float = DEFAULT_OVERLAP_PCT,
    tenant_id: str = DEFAULT_TENANT,
    counter: TokenCounter | None = None,
) -> list[Chunk]:
    """Chunk ``document`` with the named strategy; see the module docstring for the strategies."""
    planner = STRATEGIES.get(strategy)
    if planner is None:
        raise ValueError(f"unknown chunking strategy {strategy!r}; valid strategies: {', '.join(STRATEGIES)}")
    if token_budget < 1:
        raise ValueError(f"token_budget must be positive, got {token_budget}")
    if not 0 <= overlap_pct < 100:
        raise ValueError(f"overlap_pct must be in [0, 100), got {overlap_pct}")
    params = ChunkingParams(token_budget, overlap_pct, counter or minilm_token_counter())
    factory = _ChunkFactory(
        document,
        strategy,
        tenant_id,
        provenance(strategy, token_budget, overlap_pct),
        record_topics(document),
    )
    text = document.text
    chunks: list[Chunk] = []
    for section in document.sections:
        index = SegmentIndex(params.counter, text, section.start, section.end)
        for span in planner(text, section, index, params):
            chunks.append(
                factory.make(
                    len(chunks),
                    span,
                    index.tokens(*span),
                    section.kind,
                    section.label,
                    section.title_path,
                    section.facet_json,
                )
            )
    for table in document.tables:
        span = (table.start, table.end)
        chunks.append(
            factory.make(
                len(chunks),
                span,
                params.counter.count(text[table.start : table.end]),
                table.kind,
                table.label,
                table.title_path,
                table.facet_json,
                table,
            )
        )
    if not chunks and document.title:
        span = (0, len(document.title))
        chunks.append(factory.make(0, span, params.counter.count(document.title), "title", "Title", (), None))
    return chunks
