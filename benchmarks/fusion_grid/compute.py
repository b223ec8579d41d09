"""The fusion grid's figures: each component's lists from OpenSearch, every grid point fused in-process
and scored per query, and the comparisons the report shows (against the current settings)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.evaluation.exact import (
    ChunkScores,
    Configuration,
    FusionParameters,
    configuration_chunks,
    to_documents,
)
from control_plane.evaluation.query_sets import load_evaluation_set
from control_plane.measures.metrics import Qrels, ndcg_at_k, recall_at_k
from control_plane.measures.significance import paired_randomization_test
from control_plane.mlcommons.registry import deployed_model_ids
from control_plane.query.components import (
    COMPONENT_ORDER,
    bm25_clause,
    dense_text_clause,
    sparse_text_clause,
)
from control_plane.resilience.retry import retry_search

RANK_CONSTANTS = (10, 20, 40, 60, 80, 100)
WEIGHT_STEP = 10  # weights in tenths
TOP_WEIGHTED = 12  # min-max settings the report lists, best mean first


@dataclass(frozen=True)
class Setting:
    """One grid point: weighted min-max with ``weights`` (bm25, splade, dense), or RRF with ``k`` and,
    for weighted RRF, ``weights`` (None: classic RRF, each component counted once)."""

    fusion: str
    weights: tuple[float, float, float] | None = None
    k: int = 60

    @property
    def label(self) -> str:
        shown = "/".join(f"{w:.2f}" for w in self.weights) if self.weights is not None else ""
        if self.fusion == "rrf":
            return f"rrf k={self.k}" + (f" {shown}" if shown else "")
        return f"min-max {shown}"

    @property
    def weighted_rrf(self) -> bool:
        return self.fusion == "rrf" and self.weights is not None

    def parameters(self) -> FusionParameters:
        """The in-process fusion's parameters for this point."""
        by_name = dict(zip(COMPONENT_ORDER, self.weights, strict=True)) if self.weights is not None else None
        if self.fusion == "rrf":
            return FusionParameters({}, self.k, rrf_weights=by_name)
        if by_name is None:
            raise ValueError("a min-max setting needs weights")
        return FusionParameters(by_name, self.k)


@dataclass(frozen=True)
class Split:
    test_set: str
    index: str
    qrels: Qrels
    lists: dict[str, dict[str, ChunkScores]]  # query id -> component -> chunk scores
    doc_of: dict[str, str]


def weight_grid(step: int = WEIGHT_STEP) -> list[tuple[float, float, float]]:
    """Every (bm25, splade, dense) weight triple in 1/step increments that sums to 1."""
    return [
        (a / step, b / step, (step - a - b) / step)
        for a, b in itertools.product(range(step + 1), repeat=2)
        if a + b <= step
    ]


def current_settings(settings: Settings) -> tuple[Setting, Setting]:
    """The configured min-max weights and RRF (rank constant, weights when weighted): the baselines
    every point is tested against."""
    bm25, splade, dense = settings.fusion.weights.in_order()
    rrf = settings.fusion.rrf
    rrf_weights = None
    if rrf.weights is not None:
        rrf_bm25, rrf_splade, rrf_dense = rrf.weights.in_order()
        rrf_weights = (rrf_bm25, rrf_splade, rrf_dense)
    return Setting("weighted", (bm25, splade, dense)), Setting("rrf", rrf_weights, k=rrf.rank_constant)


def component_clauses(text: str, ids: Mapping[str, str], depth: int) -> dict[str, dict[str, Any]]:
    """Each component alone, with the registered query-side models (raw scores, no fusion)."""
    return {
        "bm25": bm25_clause(text),
        "splade": sparse_text_clause(text, ids["sparse"]),
        "dense": dense_text_clause(text, depth, ids["dense_query"]),
    }


def collect(
    client: OpenSearch, settings: Settings, test_set: str, index: str, depth: int, limit: int | None = None
) -> Split:
    """Each judged query's component lists; ``limit``: the first N judged queries only (as `biohybrid
    evaluate --limit`: scifact/train's first 300 are the claims held out of model training)."""
    ids = deployed_model_ids(client, settings)
    missing = {"sparse", "dense_query"} - set(ids)
    if missing:
        raise SystemExit(f"models not deployed: {sorted(missing)}; run `biohybrid models register` first")
    data = load_evaluation_set(test_set, limit=limit)
    lists: dict[str, dict[str, ChunkScores]] = {}
    doc_of: dict[str, str] = {}
    queries = list(data.queries)
    for number, query in enumerate(queries, start=1):
        lists[query.query_id] = {}
        for component, clause in component_clauses(query.text, ids, depth).items():
            body = {"size": depth, "_source": ["doc_id"], "query": clause}
            answer = retry_search(partial(client.search, index=index, body=body), what="fusion grid")
            hits = answer["hits"]["hits"]
            lists[query.query_id][component] = {h["_id"]: float(h["_score"]) for h in hits}
            doc_of.update({h["_id"]: h["_source"]["doc_id"] for h in hits})
        if number % 100 == 0:
            print(f"  {test_set}: {number}/{len(queries)} queries", file=sys.stderr)
    label = test_set if limit is None else f"{test_set}[:{limit}]"
    return Split(label, index, dict(data.qrels), lists, doc_of)


def per_query_ndcg(split: Split, setting: Setting, depth: int) -> tuple[dict[str, float], float]:
    """nDCG@10 per query and mean Recall@100 of ``setting`` on ``split`` (document level)."""
    configuration = Configuration(
        setting.label, COMPONENT_ORDER, "weighted" if setting.fusion != "rrf" else "rrf"
    )
    parameters = setting.parameters()
    ndcg: dict[str, float] = {}
    recall = 0.0
    for query_id, lists in split.lists.items():
        chunks = configuration_chunks(configuration, lists, parameters)
        ranking = list(to_documents(chunks, split.doc_of, depth))
        ndcg[query_id] = ndcg_at_k(split.qrels[query_id], ranking, 10)
        recall += recall_at_k(split.qrels[query_id], ranking, 100)
    return ndcg, recall / max(len(split.lists), 1)


@dataclass(frozen=True)
class Scored:
    setting: Setting
    ndcg: dict[str, dict[str, float]]  # split -> query -> nDCG@10
    recall: dict[str, float]

    def mean(self, split: str) -> float:
        values = self.ndcg[split]
        return sum(values.values()) / max(len(values), 1)

    def overall(self) -> float:
        return sum(self.mean(s) for s in self.ndcg) / max(len(self.ndcg), 1)


@dataclass(frozen=True)
class Grid:
    """Every setting scored (the current ones first), and the current settings' scores."""

    scored: tuple[Scored, ...]
    current_weighted: Scored
    current_rrf: Scored

    def baseline(self, setting: Setting) -> Scored:
        """The current setting of the same fusion, which ``setting`` is compared with."""
        return self.current_rrf if setting.fusion == "rrf" else self.current_weighted


def score_grid(splits: Sequence[Split], settings: Sequence[Setting], depth: int) -> list[Scored]:
    scored = []
    for setting in settings:
        ndcg, recall = {}, {}
        for split in splits:
            ndcg[split.test_set], recall[split.test_set] = per_query_ndcg(split, setting, depth)
        scored.append(Scored(setting, ndcg, recall))
    return scored


def score_against_current(splits: Sequence[Split], current: tuple[Setting, Setting], depth: int) -> Grid:
    """The current settings, the min-max weight simplex, classic RRF's rank constants and weighted RRF's
    simplex at the current rank constant (the spec's k), each scored once."""
    k = current[1].k
    grid = [
        *(Setting("weighted", w) for w in weight_grid()),
        *(Setting("rrf", k=rank_constant) for rank_constant in RANK_CONSTANTS),
        *(Setting("rrf", w, k=k) for w in weight_grid()),
    ]
    scored = score_grid(splits, list(dict.fromkeys([*current, *grid])), depth)
    by_setting = {s.setting: s for s in scored}
    return Grid(tuple(scored), by_setting[current[0]], by_setting[current[1]])


@dataclass(frozen=True)
class SplitCells:
    """One setting on one split: nDCG@10, its difference from the baseline and the paired p, Recall@100."""

    ndcg: float
    delta: float
    p_value: float
    recall: float


@dataclass(frozen=True)
class Row:
    """One line of the report's table; ``note`` says why it is listed when its rank does not."""

    setting: Setting
    overall: float
    splits: tuple[SplitCells, ...]
    note: str = ""


@dataclass(frozen=True)
class Best:
    """The best setting of one fusion by mean nDCG@10 over the splits, beside the current one's mean."""

    label: str
    overall: float
    current: float


@dataclass(frozen=True)
class Summary:
    """What the report shows: its rows (current, best min-max, single components, every classic RRF,
    the best weighted RRF) and the best of each fusion."""

    splits: tuple[str, ...]
    rows: tuple[Row, ...]
    best_weighted: Best
    best_rrf: Best
    best_weighted_rrf: Best | None


def _p(baseline: Scored, other: Scored, split: str) -> float:
    queries = sorted(baseline.ndcg[split])
    test = paired_randomization_test(
        [baseline.ndcg[split][q] for q in queries], [other.ndcg[split][q] for q in queries]
    )
    return test.p_value


def summarize(grid: Grid, top: int = TOP_WEIGHTED) -> Summary:
    """The rows in the report's order, each compared with the current setting of its fusion."""
    splits = tuple(next(iter(grid.scored)).ndcg)

    def row(item: Scored, note: str = "") -> Row:
        baseline = grid.baseline(item.setting)
        cells = tuple(
            SplitCells(item.mean(s), item.mean(s) - baseline.mean(s), _p(baseline, item, s), item.recall[s])
            for s in splits
        )
        return Row(item.setting, item.overall(), cells, note)

    weighted = sorted((s for s in grid.scored if s.setting.fusion != "rrf"), key=lambda s: -s.overall())
    classic = sorted(
        (s for s in grid.scored if s.setting.fusion == "rrf" and not s.setting.weighted_rrf),
        key=lambda s: s.setting.k,
    )
    weighted_rrf = sorted((s for s in grid.scored if s.setting.weighted_rrf), key=lambda s: -s.overall())
    singles = [s for s in weighted if max(s.setting.weights or (0.0,)) == 1.0]
    current_rrf = grid.current_rrf.setting

    def rrf_note(item: Scored) -> str:
        return "current" if item.setting == current_rrf else ""

    rows = [row(grid.current_weighted, "current")]
    rows += [row(item) for item in weighted[:top]]
    rows += [row(item, "one component") for item in sorted(singles, key=lambda s: s.setting.weights or ())]
    rows += [row(item, rrf_note(item)) for item in classic]
    listed = weighted_rrf[:top]
    if grid.current_rrf.setting.weighted_rrf and grid.current_rrf not in listed:
        listed = [grid.current_rrf, *listed]
    rows += [row(item, rrf_note(item)) for item in listed]
    best_weighted, best_rrf = weighted[0], max(classic, key=lambda s: s.overall())
    best_weighted_rrf = (
        Best(weighted_rrf[0].setting.label, weighted_rrf[0].overall(), grid.current_rrf.overall())
        if weighted_rrf
        else None
    )
    return Summary(
        splits,
        tuple(rows),
        Best(best_weighted.setting.label, best_weighted.overall(), grid.current_weighted.overall()),
        Best(best_rrf.setting.label, best_rrf.overall(), grid.current_rrf.overall()),
        best_weighted_rrf,
    )
