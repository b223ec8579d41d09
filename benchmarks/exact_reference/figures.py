"""The exact-reference figures: k-NN recall, score parity and retrieval quality, from the measured chunk
lists (pure: no cluster, no models)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from control_plane.evaluation.exact import (
    CONFIGURATIONS,
    ChunkScores,
    FusionParameters,
    configuration_chunks,
    runs_from_components,
    to_documents,
)
from control_plane.measures.metrics import Run, evaluate, per_query
from control_plane.query.components import COMPONENT_ORDER

METRICS = ("ndcg@10", "recall@100")
KNN_RECALL_K = 100
ORDER_TOLERANCE = 1e-6  # relative: float32 keeps ~7 digits
RELATIVE_FLOOR = 1e-3  # relative differences only for scores above this share of the list's best


@dataclass(frozen=True)
class Options:
    """What is compared and how deep: the index, chunks per component, documents per run, k-NN ef_search."""

    index: str
    candidate_depth: int
    depth: int
    ef_search: int | None


@dataclass(frozen=True)
class Lists:
    """Per query, the chunk lists compared: OpenSearch's (bm25, splade, dense, knn@100, hybrid-minmax,
    hybrid-rrf), the exact components, the exact components at stored SPLADE precision, exact top 100."""

    opensearch: dict[str, dict[str, ChunkScores]]
    exact: dict[str, dict[str, ChunkScores]]
    stored: dict[str, dict[str, ChunkScores]]
    exact_knn: dict[str, ChunkScores]
    knn_by_ef_search: dict[int, dict[str, ChunkScores]]

    def single(self, component: str) -> dict[str, ChunkScores]:
        return {q: lists[component] for q, lists in self.opensearch.items()}


@dataclass(frozen=True)
class Parity:
    """OpenSearch's chunk lists against reference lists of the same queries. ``same_order``: same
    chunks, and OpenSearch's order never puts a chunk above one the reference scores higher by more
    than float32 rounding (so equal scores may come in either order)."""

    queries: int
    same_order: int
    same_set: int
    common_hits: int
    max_abs: float
    max_rel: float
    mean_rel: float


@dataclass(frozen=True)
class Figures:
    """Every number of the report; ``scores``: run kind -> configuration -> metric -> value."""

    knn_recall: list[float]
    knn_recall_by_ef_search: dict[int, float]
    dense_recall_at_depth: list[float]
    dense_recall_at_100_in_runs: list[float]
    parity: dict[str, Parity]
    scores: dict[str, dict[str, dict[str, float]]]
    changed: dict[str, int]


def compare(
    lists: Lists,
    doc_of: Mapping[str, str],
    parameters: FusionParameters,
    qrels: Mapping[str, Mapping[str, int]],
    options: Options,
) -> Figures:
    """Every figure of the report, from the chunk lists."""
    opensearch, exact, stored = lists.opensearch, lists.exact, lists.stored
    single = {name: lists.single(name) for name in COMPONENT_ORDER}
    replay_components = {q: {n: single[n][q] for n in COMPONENT_ORDER} for q in opensearch}
    runs: dict[str, dict[str, Run]] = {
        "opensearch": {
            c.name: {q: to_documents(ls[c.name], doc_of, options.depth) for q, ls in opensearch.items()}
            for c in CONFIGURATIONS
        },
        "exact": runs_from_components(exact, doc_of, parameters, options.depth),
        "stored": runs_from_components(stored, doc_of, parameters, options.depth),
        "replay": runs_from_components(replay_components, doc_of, parameters, options.depth),
    }
    replayed = {
        c.name: {q: configuration_chunks(c, ls, parameters) for q, ls in replay_components.items()}
        for c in CONFIGURATIONS
        if c.fusion is not None
    }
    parity = {
        "bm25 vs exact": _parity(single["bm25"], _component(exact, "bm25")),
        "splade vs exact (float weights)": _parity(single["splade"], _component(exact, "splade")),
        "splade vs exact (stored 9-bit weights)": _parity(single["splade"], _component(stored, "splade")),
        "dense vs exact": _parity(single["dense"], _component(exact, "dense")),
        **{
            f"{name} vs Python fusion of OpenSearch's lists": _parity(lists.single(name), chunks)
            for name, chunks in replayed.items()
        },
    }
    return Figures(
        knn_recall=[_overlap(opensearch[q]["knn@100"], lists.exact_knn[q], KNN_RECALL_K) for q in opensearch],
        knn_recall_by_ef_search={
            ef: mean([_overlap(found[q], lists.exact_knn[q], KNN_RECALL_K) for q in found])
            for ef, found in lists.knn_by_ef_search.items()
        },
        dense_recall_at_100_in_runs=[
            _overlap(opensearch[q]["dense"], lists.exact_knn[q], KNN_RECALL_K) for q in opensearch
        ],
        dense_recall_at_depth=[
            _overlap(opensearch[q]["dense"], exact[q]["dense"], options.candidate_depth) for q in opensearch
        ],
        parity=parity,
        scores={
            kind: {name: evaluate(qrels, run, METRICS) for name, run in r.items()} for kind, r in runs.items()
        },
        changed={
            c.name: _changed_queries(qrels, runs["opensearch"][c.name], runs["exact"][c.name])
            for c in CONFIGURATIONS
        },
    )


def _component(lists: Mapping[str, Mapping[str, ChunkScores]], name: str) -> dict[str, ChunkScores]:
    return {q: ls[name] for q, ls in lists.items()}


def _overlap(found: ChunkScores, exact: ChunkScores, k: int) -> float:
    truth = list(exact)[:k]
    return len(set(list(found)[:k]) & set(truth)) / len(truth) if truth else 1.0


def _parity(found: Mapping[str, ChunkScores], reference: Mapping[str, ChunkScores]) -> Parity:
    same_order = same_set = common = 0
    max_abs = max_rel = 0.0
    relative: list[float] = []
    for query_id, hits in found.items():
        ref = reference[query_id]
        same = set(hits) == set(ref)
        same_set += same
        same_order += same and _ordered_by(list(hits), ref)
        floor = RELATIVE_FLOOR * max((abs(v) for v in ref.values()), default=0.0)
        for chunk in hits.keys() & ref.keys():
            diff = hits[chunk] - ref[chunk]
            common += 1
            max_abs = max(max_abs, abs(diff))
            if abs(ref[chunk]) > floor:
                relative.append(diff / ref[chunk])
                max_rel = max(max_rel, abs(diff / ref[chunk]))
    mean_rel = math.fsum(relative) / len(relative) if relative else 0.0
    return Parity(len(found), same_order, same_set, common, max_abs, max_rel, mean_rel)


def _ordered_by(ranking: Sequence[str], scores: Mapping[str, float]) -> bool:
    """Whether ``ranking`` is a best-first order of ``scores`` up to float32 rounding."""
    values = [scores[chunk] for chunk in ranking]
    tolerance = ORDER_TOLERANCE * max((abs(v) for v in values), default=0.0)
    return all(later <= earlier + tolerance for earlier, later in itertools.pairwise(values))


def _changed_queries(qrels: Mapping[str, Mapping[str, int]], found: Run, exact: Run) -> int:
    a, b = per_query(qrels, found, ["ndcg@10"]), per_query(qrels, exact, ["ndcg@10"])
    return sum(1 for q in a if abs(a[q]["ndcg@10"] - b[q]["ndcg@10"]) > 1e-9)


def mean(values: Sequence[float]) -> float:
    """The mean, NaN for no values."""
    return math.fsum(values) / len(values) if values else float("nan")
