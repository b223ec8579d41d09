"""The stratified clinical query set: queries of dev/train splits sampled evenly by query type.

The rule (``STRATIFICATION_RULE``, also written into every report):

1. Population: every query of the source splits (dev/train only, never test) that has at least one
   relevant document (grade > 0) in its split's qrels; a query id in two sources is an error.
2. Type: ``control_plane.clinical.query_types.classify_query(text)`` -> exact_term (drug, gene or trial
   identifiers), paraphrase, or complex (multi-facet).
3. Sample: within each type, queries ordered by sha256("<seed>:<query id>") and the first ``per_type``
   kept (all of them when the type has fewer). The order depends on neither file order nor the other
   queries, so adding queries to a split never reshuffles the ones already chosen.
4. The set's qrels are each chosen query's qrels from its own split.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from control_plane.testsets.catalog import Query

STRATIFICATION_RULE = (
    "queries of {sources} with >= 1 relevant document, typed by classify_query "
    "(exact_term | paraphrase | complex); per type the first {per_type} by sha256('{seed}:<query id>')"
)


@dataclass(frozen=True)
class Stratification:
    """Which queries were chosen and the counts behind the choice, for the report."""

    rule: str
    population: dict[str, int]
    selected: dict[str, int]
    query_ids: tuple[str, ...]


def sample_key(seed: str, query_id: str) -> str:
    """The order within a type: a seeded hash, stable across runs and machines."""
    return hashlib.sha256(f"{seed}:{query_id}".encode()).hexdigest()


def stratify(
    queries: Sequence[Query],
    query_types: Mapping[str, str],
    per_type: int,
    seed: str,
    rule: str = "",
) -> Stratification:
    """Up to ``per_type`` queries of each type (types in sorted order, each in hash order)."""
    if per_type < 1:
        raise ValueError(f"per_type must be >= 1, got {per_type}")
    by_type: dict[str, list[str]] = {}
    for query in queries:
        by_type.setdefault(query_types[query.query_id], []).append(query.query_id)
    chosen: list[str] = []
    selected: dict[str, int] = {}
    for query_type in sorted(by_type):
        ordered = sorted(by_type[query_type], key=lambda query_id: sample_key(seed, query_id))
        chosen.extend(ordered[:per_type])
        selected[query_type] = min(per_type, len(ordered))
    population = dict(sorted(Counter(query_types[q.query_id] for q in queries).items()))
    return Stratification(rule=rule, population=population, selected=selected, query_ids=tuple(chosen))


def classify_all(queries: Sequence[Query], classify: Callable[[str], str]) -> dict[str, str]:
    """query id -> query type (as a plain string, so StrEnum members and strings compare alike)."""
    return {query.query_id: str(classify(query.text)) for query in queries}
