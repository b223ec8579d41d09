"""Neighbour merging: top results that are touching or overlapping pieces of one document become one
passage when they say the same thing, instead of filling the page with near-duplicates.

Two hits are neighbours when they share ``doc_id`` and their offset ranges overlap or lie at most
``max_gap`` characters apart (the chunker cuts at whitespace, so a small gap is whitespace). Going
down the ranking, each hit is compared with the earlier-kept hit it neighbours (the first by rank):

* cosine of their embeddings > ``min_cosine`` and estimated merged tokens <= ``max_tokens``: merged;
* otherwise only the higher-scoring of the two stays (at the earlier rank; equal scores keep the
  earlier one).

A hit without an embedding is never similar, and one whose text length differs from ``end - start``
(offsets that do not describe its text) is never a neighbour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ChunkHit:
    """One ranked chunk as neighbour merging sees it. ``start``/``end`` are offsets in the document's
    canonical text (``text`` == canonical[start:end]); ``merged_from`` lists the chunk ids a merged hit
    covers, in document order (empty for a chunk that was not merged)."""

    chunk_id: str
    doc_id: str
    score: float
    start: int
    end: int
    text: str
    token_count: int
    embedding: tuple[float, ...] | None = None
    merged_from: tuple[str, ...] = ()


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is zero."""
    if len(a) != len(b):
        raise ValueError(f"embeddings differ in dimension: {len(a)} vs {len(b)}")
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return 0.0 if norm == 0.0 else math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm


def are_neighbours(a: ChunkHit, b: ChunkHit, max_gap: int) -> bool:
    if a.doc_id != b.doc_id or not (_consistent(a) and _consistent(b)):
        return False
    return b.start - a.end <= max_gap and a.start - b.end <= max_gap


def _consistent(hit: ChunkHit) -> bool:
    return len(hit.text) == hit.end - hit.start


def merged_token_estimate(a: ChunkHit, b: ChunkHit) -> float:
    """Sum of both token counts minus the overlap's share: overlapping characters x the pair's tokens
    per character."""
    overlap = max(0, min(a.end, b.end) - max(a.start, b.start))
    chars = (a.end - a.start) + (b.end - b.start)
    density = (a.token_count + b.token_count) / chars if chars else 0.0
    return a.token_count + b.token_count - overlap * density


def merge_pair(first: ChunkHit, second: ChunkHit) -> ChunkHit:
    """One hit covering both: offsets from the earlier start to the later end, text spliced by offsets
    (the earlier text, then the part of the later text past it; a gap is filled with spaces), the
    higher score, and the identity (chunk_id) of ``first``, the better-ranked one."""
    earlier, later = sorted((first, second), key=lambda hit: (hit.start, -hit.end))
    gap = later.start - earlier.end
    if later.end <= earlier.end:
        text = earlier.text
    elif gap >= 0:
        text = earlier.text + " " * gap + later.text
    else:
        text = earlier.text + later.text[-gap:]
    return replace(
        first,
        score=max(first.score, second.score),
        start=earlier.start,
        end=max(earlier.end, later.end),
        text=text,
        token_count=round(merged_token_estimate(first, second)),
        embedding=_mean_embedding(first, second),
        merged_from=_members(earlier) + _members(later),
    )


def _members(hit: ChunkHit) -> tuple[str, ...]:
    return hit.merged_from or (hit.chunk_id,)


def _mean_embedding(a: ChunkHit, b: ChunkHit) -> tuple[float, ...] | None:
    """Member-weighted mean, so a merged passage compares like the average of its chunks."""
    if a.embedding is None or b.embedding is None:
        return None
    wa, wb = len(_members(a)), len(_members(b))
    return tuple((wa * x + wb * y) / (wa + wb) for x, y in zip(a.embedding, b.embedding, strict=True))


def _similar(a: ChunkHit, b: ChunkHit, min_cosine: float) -> bool:
    if a.embedding is None or b.embedding is None:
        return False
    return cosine(a.embedding, b.embedding) > min_cosine


def merge_neighbours(
    hits: Sequence[ChunkHit], min_cosine: float = 0.85, max_tokens: int = 800, max_gap: int = 2
) -> list[ChunkHit]:
    """The ranking with neighbouring hits merged or deduplicated (module docstring); each result sits
    at the rank of its first member."""
    if not -1.0 <= min_cosine <= 1.0:
        raise ValueError(f"min_cosine must lie in [-1, 1], got {min_cosine}")
    if max_tokens < 1 or max_gap < 0:
        raise ValueError(f"max_tokens must be >= 1 and max_gap >= 0, got {max_tokens} and {max_gap}")
    kept: list[ChunkHit] = []
    for hit in hits:
        slot = next((i for i, other in enumerate(kept) if are_neighbours(other, hit, max_gap)), None)
        if slot is None:
            kept.append(hit)
            continue
        other = kept[slot]
        if _similar(other, hit, min_cosine) and merged_token_estimate(other, hit) <= max_tokens:
            kept[slot] = merge_pair(other, hit)
        elif hit.score > other.score:
            kept[slot] = hit
    return kept
