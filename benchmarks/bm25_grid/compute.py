"""The BM25 grid's figures: every point scored by the exact reference alone and inside the fusions, the
settings the rule chooses, the reference's parity with OpenSearch, and the tables' comparisons."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.bm25_grid.measure import BOOST_VARIANTS, Prepared
from control_plane.config.settings import Settings
from control_plane.evaluation.exact import (
    ChunkScores,
    Configuration,
    FusionParameters,
    configuration_chunks,
    to_documents,
)
from control_plane.measures.metrics import ndcg_at_k, recall_at_k
from control_plane.measures.significance import paired_test_by_query
from control_plane.query.components import COMPONENT_ORDER

MIN_GAIN = 0.002
"""Mean hybrid-minmax nDCG@10 a setting must gain over the current one (a re-index is the price)."""
K1_VALUES = (0.6, 0.9, 1.2, 1.5, 2.0)
B_VALUES = (0.3, 0.4, 0.55, 0.75, 0.9)
DEPTHS = (50, 100, 200)
DEEPEST = max(DEPTHS)  # the component lists are collected once at this depth and cut for the others
MIXED_DEPTHS = ((100, 100, 200), (50, 50, 200), (200, 200, 100), (100, 50, 100))
FUSIONS = (
    Configuration("hybrid-minmax", COMPONENT_ORDER, "weighted"),
    Configuration("hybrid-rrf", COMPONENT_ORDER, "rrf"),
)


@dataclass(frozen=True)
class Point:
    """One setting: BM25 (k1, b) and field boosts, and each component's candidate depth."""

    k1: float
    b: float
    boosts: str = "current"
    depths: tuple[int, int, int] = (100, 100, 100)  # bm25, splade, dense

    @property
    def label(self) -> str:
        depths = "/".join(str(d) for d in self.depths)
        return f"k1 {self.k1:g}, b {self.b:g}, boosts {self.boosts}, depth {depths}"


@dataclass(frozen=True)
class Scores:
    """Per configuration, nDCG@10 per query; and hybrid-minmax's mean Recall@100."""

    ndcg: dict[str, dict[str, float]]
    recall: float

    def mean(self, configuration: str) -> float:
        values = self.ndcg[configuration]
        return sum(values.values()) / max(len(values), 1)


def fusion_parameters(settings: Settings) -> FusionParameters:
    """The product's fusions as configured: the min-max weights and the RRF rank constant."""
    return FusionParameters(
        dict(zip(COMPONENT_ORDER, settings.fusion.weights.in_order(), strict=True)),
        settings.fusion.rrf.rank_constant,
    )


def parity(prepared: Prepared, similarity: tuple[float, float]) -> float:
    """Mean top-10 overlap between OpenSearch's BM25 list and the reference's at the index's setting."""
    overlaps = []
    for query_id, lists in prepared.split.lists.items():
        theirs = list(lists["bm25"])[:10]
        ours = prepared.index.bm25(
            prepared.terms[query_id], 10, prepared.boosts["current"], similarity=similarity
        )
        overlaps.append(len(set(theirs) & set(ours)) / max(len(theirs), 1) if theirs else 1.0)
    return sum(overlaps) / max(len(overlaps), 1)


def score(prepared: Prepared, point: Point, fusion: FusionParameters, depth: int) -> Scores:
    ndcg: dict[str, dict[str, float]] = {"bm25": {}, **{c.name: {} for c in FUSIONS}}
    recall = 0.0
    split = prepared.split
    for query_id, lists in split.lists.items():
        judgments = split.qrels[query_id]
        bm25 = prepared.index.bm25(
            prepared.terms[query_id],
            point.depths[0],
            prepared.boosts[point.boosts],
            similarity=(point.k1, point.b),
        )
        cut: dict[str, ChunkScores] = {
            "bm25": bm25,
            "splade": dict(itertools.islice(lists["splade"].items(), point.depths[1])),
            "dense": dict(itertools.islice(lists["dense"].items(), point.depths[2])),
        }
        ndcg["bm25"][query_id] = ndcg_at_k(judgments, list(to_documents(bm25, split.doc_of, depth)), 10)
        for configuration in FUSIONS:
            chunks = configuration_chunks(configuration, cut, fusion)
            ranking = list(to_documents(chunks, split.doc_of, depth))
            ndcg[configuration.name][query_id] = ndcg_at_k(judgments, ranking, 10)
            if configuration.name == "hybrid-minmax":
                recall += recall_at_k(judgments, ranking, 100)
    return Scores(ndcg, recall / max(len(split.lists), 1))


def choose(points: Sequence[Point], scored: Mapping[Point, Mapping[str, Scores]], baseline: Point) -> Point:
    """The point with the best mean hybrid-minmax nDCG@10 among those that lose on no split and gain at
    least ``MIN_GAIN`` on average; the current setting when none does."""

    def mean(point: Point) -> float:
        return sum(s.mean("hybrid-minmax") for s in scored[point].values()) / len(scored[point])

    safe = [
        p
        for p in points
        if mean(p) >= mean(baseline) + MIN_GAIN
        and all(
            scored[p][s].mean("hybrid-minmax") >= scored[baseline][s].mean("hybrid-minmax") for s in scored[p]
        )
    ]
    return max(safe or [baseline], key=mean)


@dataclass(frozen=True)
class Grid:
    """Every point scored per split (in the order scored), the three sweeps and what the rule chose."""

    baseline: Point
    similarity: tuple[Point, ...]  # the (k1, b) grid, best mean hybrid-minmax first
    boosts: tuple[Point, ...]
    depths: tuple[Point, ...]
    scored: dict[Point, dict[str, Scores]]
    best_similarity: Point
    best_boosts: Point
    parities: dict[str, float]  # split -> the reference's parity with OpenSearch at the index's setting


def search_grid(
    prepared: Mapping[str, Prepared], fusion: FusionParameters, index_similarity: tuple[float, float]
) -> Grid:
    """(k1, b) first; then the field boosts at the current and the chosen (k1, b); then the depths."""
    baseline = Point(*index_similarity)
    grid = [Point(k1, b) for k1, b in itertools.product(K1_VALUES, B_VALUES)]
    points = list(dict.fromkeys([baseline, *grid]))
    scored: dict[Point, dict[str, Scores]] = {}

    def run(candidates: Sequence[Point]) -> None:
        for point in candidates:
            if point not in scored:
                scored[point] = {s: score(p, point, fusion, DEEPEST) for s, p in prepared.items()}

    run(points)
    best_similarity = choose(points, scored, baseline)
    boosts = [
        Point(k1, b, name)
        for k1, b in {index_similarity, (best_similarity.k1, best_similarity.b)}
        for name in BOOST_VARIANTS
    ]
    run(boosts)
    best_boosts = choose([*points, *boosts], scored, baseline)
    depth_grid = sorted({(d, d, d) for d in DEPTHS} | set(MIXED_DEPTHS))
    depths = [Point(*index_similarity, "current", d) for d in depth_grid]
    run(depths)
    parities = {s: parity(p, index_similarity) for s, p in prepared.items()}
    by_mean = sorted(points, key=lambda p: -sum(s.mean("hybrid-minmax") for s in scored[p].values()))
    return Grid(
        baseline, tuple(by_mean), tuple(boosts), tuple(depths), scored, best_similarity, best_boosts, parities
    )


@dataclass(frozen=True)
class Cell:
    """One configuration's mean nDCG@10 on one split, its difference from the baseline and the paired p."""

    ndcg: float
    delta: float
    p_value: float


@dataclass(frozen=True)
class Row:
    point: Point
    cells: tuple[Cell, ...]  # per split, per configuration
    mean_minmax: float  # mean hybrid-minmax nDCG@10 over the splits


@dataclass(frozen=True)
class Table:
    splits: tuple[str, ...]
    configurations: tuple[str, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Tables:
    """The report's three tables: (k1, b), field boosts, candidate depths."""

    similarity: Table
    boosts: Table
    depths: Table


def compare(
    points: Sequence[Point],
    scored: Mapping[Point, Mapping[str, Scores]],
    baseline: Point,
    configurations: Sequence[str],
) -> Table:
    """Each point against the baseline, per split and configuration (the baseline's own p is 1)."""
    splits = tuple(scored[baseline])
    rows = []
    for point in points:
        cells = []
        for split in splits:
            for configuration in configurations:
                mine = scored[point][split]
                base = scored[baseline][split]
                delta = mine.mean(configuration) - base.mean(configuration)
                p = (
                    paired_test_by_query(base.ndcg[configuration], mine.ndcg[configuration]).p_value
                    if point != baseline
                    else 1.0
                )
                cells.append(Cell(mine.mean(configuration), delta, p))
        mean = sum(scored[point][s].mean("hybrid-minmax") for s in splits) / len(splits)
        rows.append(Row(point, tuple(cells), mean))
    return Table(splits, tuple(configurations), tuple(rows))


def tabulate(grid: Grid) -> Tables:
    return Tables(
        compare(grid.similarity, grid.scored, grid.baseline, ("bm25", "hybrid-minmax", "hybrid-rrf")),
        compare(grid.boosts, grid.scored, grid.baseline, ("bm25", "hybrid-minmax")),
        compare(grid.depths, grid.scored, grid.baseline, ("hybrid-minmax", "hybrid-rrf")),
    )
