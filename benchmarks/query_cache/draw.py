"""The request sequence: a seeded Zipf draw over a query pool (the popularity ranks are a seeded hash
order of the query ids, so no query set's order decides which queries are popular)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from control_plane.testsets.catalog import Query
from control_plane.testsets.stratify import sample_key


@dataclass(frozen=True)
class Draw:
    queries: tuple[Query, ...]
    pool: int
    exponent: float
    seed: str

    @property
    def distinct(self) -> int:
        return len({q.query_id for q in self.queries})

    @property
    def repeat_rate(self) -> float:
        """Requests whose query was drawn before: what an unbounded, never-expiring cache could answer."""
        return 1 - self.distinct / len(self.queries) if self.queries else 0.0

    def repeats(self) -> list[bool]:
        """Per request: whether its query came earlier in the sequence."""
        seen: set[str] = set()
        flags = []
        for query in self.queries:
            flags.append(query.query_id in seen)
            seen.add(query.query_id)
        return flags


def popularity_order(pool: Sequence[Query], seed: str) -> list[Query]:
    """Distinct queries, most popular first."""
    unique = {q.query_id: q for q in pool}.values()
    return sorted(unique, key=lambda q: sample_key(seed, q.query_id))


def zipf_draw(pool: Sequence[Query], count: int, exponent: float, seed: str) -> Draw:
    """``count`` requests; the query of popularity rank r (1-based) is drawn with probability proportional
    to 1 / r ** ``exponent`` (1.0 is the classic Zipf; lower spreads requests over more queries)."""
    if count < 1 or exponent < 0:
        raise ValueError(f"count must be >= 1 and the exponent >= 0, got {count} and {exponent}")
    ordered = popularity_order(pool, seed)
    if not ordered:
        raise ValueError("no queries to draw from")
    weights = [1 / rank**exponent for rank in range(1, len(ordered) + 1)]
    rng = random.Random(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big"))
    return Draw(tuple(rng.choices(ordered, weights=weights, k=count)), len(ordered), exponent, seed)


def warmup_queries(pool: Sequence[Query], draw: Draw, count: int) -> list[Query]:
    """The least popular queries the draw did not pick: they warm connections and code paths without
    putting anything the timed sequence will ask for into a cache."""
    drawn = {q.query_id for q in draw.queries}
    unused = [q for q in reversed(popularity_order(pool, draw.seed)) if q.query_id not in drawn]
    return unused[:count]
