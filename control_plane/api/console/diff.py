"""Where each hit of one ranked list stands in the other: same rank, moved up or down by how many places,
or only in this list (and then where the other list has the same record, if it does). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

MarkKind = Literal["same", "up", "down", "only"]


@dataclass(frozen=True)
class Ranked:
    """What the comparison reads of a hit: its chunk (the identity compared) and its record."""

    chunk_id: str
    doc_id: str


@dataclass(frozen=True)
class Mark:
    """``moved``: places higher (up) or lower (down) here than in the other list; ``other_rank``: its rank
    there; ``record_rank``: for a hit only here, the rank of the other list's first hit of its record."""

    kind: MarkKind
    label: str
    moved: int = 0
    other_rank: int | None = None
    record_rank: int | None = None


@dataclass(frozen=True)
class DiffSummary:
    shared: int
    same_rank: int
    moved: int
    only_a: int
    only_b: int


def first_ranks(items: Sequence[str]) -> dict[str, int]:
    """Each value's first rank (from 1): a value listed twice keeps its better place."""
    ranks: dict[str, int] = {}
    for rank, item in enumerate(items, start=1):
        ranks.setdefault(item, rank)
    return ranks


def marks(mine: Sequence[Ranked], theirs: Sequence[Ranked], other: str) -> list[Mark]:
    """A mark per hit of ``mine`` against ``theirs`` (named ``other`` in the labels)."""
    chunks = first_ranks([hit.chunk_id for hit in theirs])
    records = first_ranks([hit.doc_id for hit in theirs])
    found = []
    for rank, hit in enumerate(mine, start=1):
        there = chunks.get(hit.chunk_id)
        if there is None:
            record = records.get(hit.doc_id)
            label = f"only here (record at {other} #{record})" if record else "only here"
            found.append(Mark("only", label, record_rank=record))
        elif there == rank:
            found.append(Mark("same", "same rank", other_rank=there))
        elif there > rank:
            found.append(Mark("up", f"up {there - rank} ({other} #{there})", there - rank, there))
        else:
            found.append(Mark("down", f"down {rank - there} ({other} #{there})", rank - there, there))
    return found


def compare(a: Sequence[Ranked], b: Sequence[Ranked]) -> tuple[list[Mark], list[Mark], DiffSummary]:
    """The marks of A's hits against B, of B's against A, and the counts."""
    marks_a, marks_b = marks(a, b, "B"), marks(b, a, "A")
    shared = [m for m in marks_a if m.kind != "only"]
    summary = DiffSummary(
        shared=len(shared),
        same_rank=sum(m.kind == "same" for m in shared),
        moved=sum(m.kind in ("up", "down") for m in shared),
        only_a=sum(m.kind == "only" for m in marks_a),
        only_b=sum(m.kind == "only" for m in marks_b),
    )
    return marks_a, marks_b, summary
