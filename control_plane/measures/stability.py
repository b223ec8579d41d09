"""Stability of a ranking across paraphrases of one information need (the spec's "RRF variance").

A configuration is stable when two wordings of the same need get the same documents and the same
quality. Everything here is pure: pairs come from qrels and query texts, measures from runs
(query id -> doc id -> score, ordered as the metrics order them) and per-query metric values.

Pair rule ``same-relevant-set`` (``paraphrase_pairs``):

1. Two queries of one split (one qrels mapping) are candidates when their sets of relevant documents
   (grade > 0) are identical and non-empty: the judgments say they ask for the same thing.
2. Their texts must differ as lower-cased word sequences (``\\w+`` tokens), so case, whitespace or
   punctuation alone never makes a pair: such a pair would measure nothing but determinism.
3. At most ``max_pairs_per_set`` pairs per relevance set, the first by sha256("<seed>:<q1>:<q2>"),
   so one heavily cited document (SciFact has a set shared by 8 claims: 28 pairs) does not dominate.

Grouping by identical judgments fits SciFact, whose claims citing one abstract are rewordings,
negations ("raises" / "decreases"), changed numbers or sibling claims about the same evidence: for
retrieval they are one need, whatever their truth value. It does not fit NFCorpus, where identical
relevance sets mostly join unrelated topics ('apnea' | 'crib death'). ``word_overlap`` splits pairs
into near-duplicate edits and different wordings, which behave differently (see the report).

Measures (one small function per pair, dispatched by name from ``MEASURES``; a figure is the mean
over pairs, so lower variance and higher overlap mean more stable):

* ``topk_jaccard``: |A ∩ B| / |A ∪ B| of the two top-k document sets (k = 10).
* ``rbo``: rank-biased overlap, the extrapolated form for two lists evaluated to the same depth
  (Webber, Moffat and Zobel 2010, eq. 32) with p = 0.9 and depth 10:
  RBO = (X_k / k)·p^k + ((1 − p) / p)·Σ_{d=1..k} (X_d / d)·p^d, X_d = |A_{:d} ∩ B_{:d}|.
  It is 1 for identical top-k lists and 0 for disjoint ones (the truncated sum alone would top out at
  1 − p^k = 0.65). A list shorter than k counts its missing ranks as non-overlapping.
* ``within_pair_metric_variance``: (m1 − m2)² / 2, the unbiased sample variance of the metric over
  the pair's two wordings; its mean over pairs is the pooled within-need variance.
* ``mean_abs_metric_difference``: |m1 − m2| per pair, in the metric's own units.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from control_plane.measures.metrics import Qrels, Ranking, Run, rank_documents

Pair = tuple[str, str]
"""Two query ids, the smaller first (plain string order)."""

_WORD = re.compile(r"\w+")
NEAR_DUPLICATE_OVERLAP = 0.5
"""Word-set Jaccard at or above which a pair is a near-duplicate edit rather than a different wording."""


@dataclass(frozen=True)
class PairRule:
    """Which queries pair up, and how many pairs one relevance set may give."""

    name: str = "same-relevant-set"
    max_pairs_per_set: int = 3
    seed: str = "paraphrase-pairs-v1"

    def describe(self) -> str:
        """The rule in words, for reports."""
        if self.name not in PAIR_RULES:
            raise ValueError(f"unknown pair rule {self.name!r}; known: {', '.join(PAIR_RULES)}")
        return PAIR_RULE_TEXT[self.name].format(cap=self.max_pairs_per_set, seed=self.seed)


@dataclass(frozen=True)
class StabilityParameters:
    k: int = 10  # top-k cut of the Jaccard overlap
    p: float = 0.9  # RBO persistence
    depth: int = 10  # RBO evaluation depth


@dataclass(frozen=True)
class PairView:
    """What a measure sees of one pair under one configuration."""

    first: Ranking
    second: Ranking
    first_metric: float
    second_metric: float


# -- the pair rule -------------------------------------------------------------------------------------


def relevant_set(judgments: Mapping[str, int]) -> frozenset[str]:
    """The documents judged relevant (grade > 0)."""
    return frozenset(doc_id for doc_id, grade in judgments.items() if grade > 0)


def words(text: str) -> tuple[str, ...]:
    """Lower-cased ``\\w+`` tokens: what two texts must differ in to be two wordings."""
    return tuple(_WORD.findall(text.lower()))


def word_overlap(first: str, second: str) -> float:
    """Jaccard of the two texts' word sets (1.0 when both have none)."""
    a, b = set(words(first)), set(words(second))
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def same_relevant_set_groups(qrels: Qrels, queries: Mapping[str, str]) -> list[list[str]]:
    """Query ids (with a text) grouped by identical non-empty relevant sets; groups of two or more."""
    groups: dict[frozenset[str], list[str]] = {}
    for query_id in sorted(qrels):
        relevant = relevant_set(qrels[query_id])
        if relevant and query_id in queries:
            groups.setdefault(relevant, []).append(query_id)
    return [members for members in groups.values() if len(members) > 1]


PAIR_RULES: dict[str, Callable[[Qrels, Mapping[str, str]], list[list[str]]]] = {
    "same-relevant-set": same_relevant_set_groups,
}
PAIR_RULE_TEXT: dict[str, str] = {
    "same-relevant-set": (
        "two queries of one split pair up when their sets of relevant documents (grade > 0) are identical "
        "and non-empty and their texts differ as lower-cased word sequences; at most {cap} pairs per "
        "relevance set, the first by sha256('{seed}:<q1>:<q2>')"
    ),
}


def _pair_key(seed: str, pair: Pair) -> str:
    return hashlib.sha256(f"{seed}:{pair[0]}:{pair[1]}".encode()).hexdigest()


def paraphrase_pairs(qrels: Qrels, queries: Mapping[str, str], rule: PairRule = PairRule()) -> list[Pair]:
    """Pairs of query ids asking for the same documents in different words (rule in the module doc),
    sorted; ``queries`` maps query id -> text."""
    if rule.max_pairs_per_set < 1:
        raise ValueError(f"max_pairs_per_set must be >= 1, got {rule.max_pairs_per_set}")
    group = PAIR_RULES.get(rule.name)
    if group is None:
        raise ValueError(f"unknown pair rule {rule.name!r}; known: {', '.join(PAIR_RULES)}")
    pairs: list[Pair] = []
    for members in group(qrels, queries):
        candidates = [
            (a, b)
            for a, b in itertools.combinations(sorted(members), 2)
            if words(queries[a]) != words(queries[b])
        ]
        candidates.sort(key=lambda pair: _pair_key(rule.seed, pair))
        pairs.extend(candidates[: rule.max_pairs_per_set])
    return sorted(pairs)


# -- per-pair measures -----------------------------------------------------------------------------


def topk_jaccard(first: Ranking, second: Ranking, k: int = 10) -> float:
    """|A ∩ B| / |A ∪ B| of the two top-k sets; 1.0 when both lists are empty (nothing differs)."""
    a, b = set(first[:k]), set(second[:k])
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def rbo(first: Ranking, second: Ranking, p: float = 0.9, depth: int = 10) -> float:
    """Extrapolated rank-biased overlap at ``depth`` (Webber et al. 2010, eq. 32); 1.0 for two empty lists."""
    if not 0 < p < 1:
        raise ValueError(f"RBO persistence p must be in (0, 1), got {p}")
    if depth < 1:
        raise ValueError(f"RBO depth must be >= 1, got {depth}")
    if not first and not second:
        return 1.0
    seen_first: set[str] = set()
    seen_second: set[str] = set()
    overlap = 0
    weighted = 0.0
    for d in range(1, depth + 1):
        left = first[d - 1] if d <= len(first) else None
        right = second[d - 1] if d <= len(second) else None
        if left is not None and left == right:
            overlap += 1
        else:
            overlap += int(left is not None and left in seen_second)
            overlap += int(right is not None and right in seen_first)
        if left is not None:
            seen_first.add(left)
        if right is not None:
            seen_second.add(right)
        weighted += overlap / d * p**d
    return overlap / depth * p**depth + (1 - p) / p * weighted


def within_pair_metric_variance(first: float, second: float) -> float:
    """(m1 − m2)² / 2: the unbiased sample variance of two values."""
    return (first - second) ** 2 / 2


def abs_metric_difference(first: float, second: float) -> float:
    return abs(first - second)


PairMeasure = Callable[[PairView, StabilityParameters], float]

MEASURES: dict[str, PairMeasure] = {
    "topk_jaccard": lambda view, params: topk_jaccard(view.first, view.second, params.k),
    "rbo": lambda view, params: rbo(view.first, view.second, params.p, params.depth),
    "within_pair_metric_variance": lambda view, _: within_pair_metric_variance(
        view.first_metric, view.second_metric
    ),
    "mean_abs_metric_difference": lambda view, _: abs_metric_difference(
        view.first_metric, view.second_metric
    ),
}
HIGHER_IS_STABLER: dict[str, bool] = {
    "topk_jaccard": True,
    "rbo": True,
    "within_pair_metric_variance": False,
    "mean_abs_metric_difference": False,
}


def _measure(name: str) -> PairMeasure:
    if name not in MEASURES:
        raise ValueError(f"unknown stability measure {name!r}; known: {', '.join(MEASURES)}")
    return MEASURES[name]


def _view(pair: Pair, run: Run, metric_values: Mapping[str, float]) -> PairView:
    missing = [query_id for query_id in pair if query_id not in metric_values]
    if missing:
        raise ValueError(
            f"no metric value for paired queries {missing}: evaluate the run on every query of the pairs"
        )
    return PairView(
        first=rank_documents(run.get(pair[0], {})),
        second=rank_documents(run.get(pair[1], {})),
        first_metric=metric_values[pair[0]],
        second_metric=metric_values[pair[1]],
    )


def per_pair(
    pairs: Sequence[Pair],
    run: Run,
    metric_values: Mapping[str, float],
    measures: Sequence[str] = tuple(MEASURES),
    params: StabilityParameters = StabilityParameters(),
) -> dict[str, list[float]]:
    """measure name -> one value per pair, in the order of ``pairs``. A query the run lacks has an
    empty ranking; a query without a metric value is an error (it was not evaluated)."""
    resolved = {name: _measure(name) for name in measures}
    views = [_view(pair, run, metric_values) for pair in pairs]
    return {name: [measure(view, params) for view in views] for name, measure in resolved.items()}


def stability(
    pairs: Sequence[Pair],
    run: Run,
    metric_values: Mapping[str, float],
    measures: Sequence[str] = tuple(MEASURES),
    params: StabilityParameters = StabilityParameters(),
) -> dict[str, float]:
    """measure name -> mean over the pairs; ValueError when there is no pair."""
    if not pairs:
        raise ValueError("no paraphrase pairs: nothing to measure")
    values = per_pair(pairs, run, metric_values, measures, params)
    return {name: math.fsum(series) / len(series) for name, series in values.items()}


# -- context for the figures -----------------------------------------------------------------------


def within_pair_variance_share(pairs: Sequence[Pair], metric_values: Mapping[str, float]) -> float:
    """Mean within-pair variance over the sample variance of the metric across the paired queries
    (each counted once): about 0 when wording barely matters, about 1 when it matters as much as
    which need is asked. 0.0 when the metric does not vary at all."""
    if not pairs:
        raise ValueError("no paraphrase pairs: nothing to measure")
    query_ids = sorted({query_id for pair in pairs for query_id in pair})
    values = [metric_values[query_id] for query_id in query_ids]
    centre = math.fsum(values) / len(values)
    total = math.fsum((value - centre) ** 2 for value in values) / (len(values) - 1)
    within = math.fsum(
        within_pair_metric_variance(metric_values[a], metric_values[b]) for a, b in pairs
    ) / len(pairs)
    return within / total if total > 0 else 0.0


def group_means(values: Sequence[float], groups: Sequence[str]) -> dict[str, float]:
    """group -> mean of its values: pairs of one relevance set share queries, so a paired test treats
    the set, not the pair, as the independent unit."""
    if len(values) != len(groups):
        raise ValueError(f"values and groups differ in length: {len(values)} vs {len(groups)}")
    collected: dict[str, list[float]] = {}
    for value, group in zip(values, groups, strict=True):
        collected.setdefault(group, []).append(value)
    return {group: math.fsum(items) / len(items) for group, items in sorted(collected.items())}


def pair_group(qrels: Qrels, pair: Pair) -> str:
    """The relevance set a pair shares, as a stable key (its sorted doc ids joined by commas)."""
    return ",".join(sorted(relevant_set(qrels[pair[0]])))
