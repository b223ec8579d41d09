"""Training examples as pure functions: label gains, mined negatives, the leakage guard, groups, schedule.

The unit of training is a *group*: one query with one positive passage (plus a second, lower-graded
positive when the query has one), and hard negatives, scored together. The loss is listwise: the softmax
of the group's logits is pulled towards a target distribution proportional to each passage's gain
(ListNet's top-one loss; with one positive it is the localized contrastive estimation loss of Gao et al.,
2021). Why not pointwise BCE: the reranker is only ever used to order passages of one query, and a
listwise loss trains exactly that, is blind to per-query score offsets, lets a grade-2 passage outrank a
grade-1 one in the same group, and with hard negatives from the first stage it is the stronger choice
for cross-encoders in the literature.

Gains are linear in the grade (grade 2 → 2, grade 1 → 1, unjudged → 0), the gain the project's nDCG
uses (trec_eval's ``ndcg_cut``), so training and the reported metric weigh grades alike.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class TrainQuery:
    """One training query: its positives (passage id → grade > 0) and mined negatives (first-stage order)."""

    source: str
    query_id: str
    text: str
    positives: Mapping[str, int]
    negatives: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "query_id": self.query_id,
            "text": self.text,
            "positives": dict(self.positives),
            "negatives": list(self.negatives),
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> TrainQuery:
        return cls(
            source=str(record["source"]),
            query_id=str(record["query_id"]),
            text=str(record["text"]),
            positives={str(k): int(v) for k, v in record["positives"].items()},
            negatives=tuple(str(n) for n in record["negatives"]),
        )


@dataclass(frozen=True)
class Group:
    """Passage ids scored together for one query, and the target probability of each."""

    passage_ids: tuple[str, ...]
    targets: tuple[float, ...]


def gain(grade: int) -> float:
    """Linear gain: the grade itself, 0 for unjudged or non-relevant (grade ≤ 0)."""
    return float(max(grade, 0))


def normalise_query(text: str) -> str:
    """Lower-cased words joined by one space: the form held-out query texts are compared in."""
    return " ".join(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class LeakageGuard:
    """Keeps dev and test queries out of training: by (dataset, query id) and by normalised text.

    The text check matters: 8 NFCorpus train queries repeat a dev or test query word for word, and a
    MEDLINE title could too. Documents are not excluded: the corpus is shared by every split, and
    dropping the documents dev/test judge would itself be shaped by those judgments.
    """

    held_out_ids: frozenset[tuple[str, str]]
    held_out_texts: frozenset[str]

    @classmethod
    def from_queries(cls, dataset: str, queries: Mapping[str, str]) -> LeakageGuard:
        """``queries``: query id → text of every held-out (dev and test) query of ``dataset``."""
        return cls(
            held_out_ids=frozenset((dataset, q) for q in queries),
            held_out_texts=frozenset(normalise_query(t) for t in queries.values()),
        )

    def union(self, other: LeakageGuard) -> LeakageGuard:
        """A guard that holds out what either holds out."""
        return LeakageGuard(
            held_out_ids=self.held_out_ids | other.held_out_ids,
            held_out_texts=self.held_out_texts | other.held_out_texts,
        )

    def allows(self, dataset: str, query_id: str, text: str) -> bool:
        return (dataset, query_id) not in self.held_out_ids and normalise_query(
            text
        ) not in self.held_out_texts


def positive_passages(judged: Mapping[str, int], passages_of: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Every passage of every document graded > 0, with its document's grade (documents not indexed
    are skipped)."""
    return {
        passage: grade
        for doc_id, grade in sorted(judged.items())
        if grade > 0
        for passage in passages_of.get(doc_id, ())
    }


def retrieved_positives(
    ranked: Sequence[str], doc_of: Mapping[str, str], judged: Mapping[str, int]
) -> dict[str, int]:
    """The ranked passages whose document this query grades > 0, with that grade: the positives a
    reranker actually meets (it only ever sees the first stage's list)."""
    return {p: judged[doc_of[p]] for p in ranked if judged.get(doc_of[p], 0) > 0}


def mine_negatives(
    ranked: Sequence[str], doc_of: Mapping[str, str], judged: Mapping[str, int], limit: int
) -> tuple[str, ...]:
    """The first ``limit`` ranked passages whose document this query does not grade > 0.

    ``judged`` must be the query's own *training* judgments; a document judged non-relevant (grade ≤ 0)
    stays a negative. Duplicates are dropped, rank order kept.
    """
    kept: list[str] = []
    seen: set[str] = set()
    for passage in ranked:
        if passage in seen or judged.get(doc_of[passage], 0) > 0:
            continue
        seen.add(passage)
        kept.append(passage)
        if len(kept) == limit:
            break
    return tuple(kept)


def build_group(query: TrainQuery, size: int, rng: np.random.Generator, pool: Sequence[str]) -> Group:
    """``size`` passages for ``query``: a positive drawn with probability ∝ gain, a lower-graded second
    positive when one exists, then mined negatives drawn uniformly, topped up from ``pool`` (random
    passages of the same source) when the query has too few."""
    if size < 2:
        raise ValueError(f"group size must be ≥ 2 (a positive and a negative), got {size}")
    ids = sorted(query.positives)
    if not ids:
        raise ValueError(f"query {query.source}/{query.query_id} has no positive passage")
    gains = np.array([gain(query.positives[i]) for i in ids], dtype=np.float64)
    first = ids[int(rng.choice(len(ids), p=gains / gains.sum()))]
    chosen = [first]
    lower = [i for i in ids if 0 < query.positives[i] < query.positives[first]]
    if lower and size >= 3:
        chosen.append(lower[int(rng.integers(len(lower)))])
    needed = size - len(chosen)
    candidates = [n for n in query.negatives if n not in query.positives]
    picks = rng.choice(len(candidates), size=min(needed, len(candidates)), replace=False)
    chosen.extend(candidates[int(i)] for i in picks)
    chosen.extend(_random_fill(query, size - len(chosen), rng, pool, set(chosen)))
    weights = [gain(query.positives.get(p, 0)) for p in chosen]
    total = sum(weights)
    return Group(passage_ids=tuple(chosen), targets=tuple(w / total for w in weights))


def _random_fill(
    query: TrainQuery, count: int, rng: np.random.Generator, pool: Sequence[str], taken: Collection[str]
) -> list[str]:
    free = [p for p in pool if p not in query.positives and p not in taken]
    if len(free) < count:
        raise ValueError(
            f"query {query.source}/{query.query_id}: {count} more negatives needed, {len(free)} in the pool"
        )
    return [free[int(i)] for i in rng.choice(len(free), size=count, replace=False)]


def schedule(
    sizes: Mapping[str, int], weights: Mapping[str, float], steps: int, batch: int, seed: int
) -> tuple[tuple[str, ...], npt.NDArray[np.int64]]:
    """Which query fills each slot of each step: (source names, array [steps, batch, 2] of (source,
    query index)).

    Sources are drawn by weight; within a source queries come in a shuffled order that is reshuffled each
    time it is used up, so every query is seen before any is repeated. A pure function of its arguments:
    a resumed run recomputes the same schedule.
    """
    names = tuple(sorted(name for name, weight in weights.items() if weight > 0))
    empty = [name for name in names if sizes.get(name, 0) == 0]
    if empty:
        raise ValueError(f"sources {empty} have a positive weight but no training queries")
    if not names:
        raise ValueError("no source has a positive weight")
    rng = np.random.default_rng(seed)
    p = np.array([weights[n] for n in names], dtype=np.float64)
    drawn = rng.choice(len(names), size=steps * batch, p=p / p.sum())
    orders: list[npt.NDArray[np.int64]] = [rng.permutation(sizes[n]) for n in names]
    cursors = [0] * len(names)
    out = np.zeros((steps * batch, 2), dtype=np.int64)
    for slot, source in enumerate(drawn):
        if cursors[source] == len(orders[source]):
            orders[source] = rng.permutation(sizes[names[source]])
            cursors[source] = 0
        out[slot] = (source, orders[source][cursors[source]])
        cursors[source] += 1
    return names, out.reshape(steps, batch, 2)


def group_rng(seed: int, step: int, slot: int) -> np.random.Generator:
    """The generator for one slot's group: independent of every other slot, so resuming is exact."""
    return np.random.default_rng([seed, step, slot])
