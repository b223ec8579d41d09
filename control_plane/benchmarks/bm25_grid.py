"""BM25's k1 and b, its field boosts and each component's candidate depth, chosen on non-test splits.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m control_plane.benchmarks.bm25_grid \\
        --split nfcorpus/dev=chunks-nfcorpus --split scifact/train=chunks-scifact \\
        --out model_artifacts/reports/bm25-grid/dev.md

A similarity change needs a re-index in OpenSearch, so BM25 is scored by the exact reference
(control_plane/evaluation/exact.py: Lucene's BM25 over a snapshot of the index, its norms and term
statistics) with each (k1, b); the report first checks that the reference reproduces OpenSearch's own
BM25 lists at the index's setting. SPLADE and dense lists are OpenSearch's own (registered query models,
as for any client), searched once at the deepest candidate depth and cut for the shallower ones. Every
point is scored alone (bm25) and inside the product's fusions (the configured min-max weights, RRF
k = 60), documents ranked by their best chunk. A setting is chosen by the mean hybrid-minmax nDCG@10
over the splits, and only when it loses on neither split (what wins on NFCorpus alone is suspect).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from opensearchpy import OpenSearch

from control_plane.benchmarks.arguments import non_test_split
from control_plane.benchmarks.fusion_grid import Split, collect
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings, load_settings
from control_plane.evaluation.exact import (
    ChunkScores,
    Configuration,
    ExactIndex,
    FusionParameters,
    configuration_chunks,
    to_documents,
)
from control_plane.evaluation.report import describe_machine
from control_plane.evaluation.snapshot import analyze, cached_snapshot, snapshot_key
from control_plane.locations import REPOSITORY_ROOT
from control_plane.measures.metrics import ndcg_at_k, recall_at_k
from control_plane.measures.significance import paired_test_by_query
from control_plane.query.components import BM25_FIELD_BOOSTS, COMPONENT_ORDER
from control_plane.reports.figures import new_figure, save_figure
from control_plane.reports.markdown import markdown_table
from control_plane.testsets.catalog import load_test_set

CACHE_DIR = REPOSITORY_ROOT / ".cache" / "bm25-grid"
MIN_GAIN = 0.002
"""Mean hybrid-minmax nDCG@10 a setting must gain over the current one (a re-index is the price)."""
K1_VALUES = (0.6, 0.9, 1.2, 1.5, 2.0)
B_VALUES = (0.3, 0.4, 0.55, 0.75, 0.9)
DEPTHS = (50, 100, 200)
FLAT_BOOSTS: Mapping[str, float] = dict.fromkeys(BM25_FIELD_BOOSTS, 1.0)
TITLE_BOOSTS: Mapping[str, float] = {**BM25_FIELD_BOOSTS, "title_path": 2.0 * BM25_FIELD_BOOSTS["title_path"]}
BOOST_VARIANTS: Mapping[str, Mapping[str, float]] = {
    "current": BM25_FIELD_BOOSTS,
    "flat (all 1.0)": FLAT_BOOSTS,
    "title x2": TITLE_BOOSTS,
}
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
class Prepared:
    """A split with what every point reuses: OpenSearch's lists, the exact index, the analysed queries."""

    split: Split
    index: ExactIndex
    terms: dict[str, dict[str, tuple[str, ...]]]  # query id -> field -> analysed terms
    boosts: dict[str, dict[str, float]]  # variant -> boosts over the fields this index has


@dataclass(frozen=True)
class Scores:
    """Per configuration, nDCG@10 per query; and hybrid-minmax's mean Recall@100."""

    ndcg: dict[str, dict[str, float]]
    recall: float

    def mean(self, configuration: str) -> float:
        values = self.ndcg[configuration]
        return sum(values.values()) / max(len(values), 1)


def cached_collect(client: OpenSearch, settings: Settings, test_set: str, index: str, depth: int) -> Split:
    """OpenSearch's component lists, from .cache/bm25-grid while the index and the models are unchanged."""
    key = hashlib.sha256(
        json.dumps(
            [snapshot_key(client, index), settings.models.dense, settings.models.sparse, depth]
        ).encode()
    ).hexdigest()[:12]
    path = CACHE_DIR / f"{test_set.replace('/', '-')}-{index}-{key}.json"
    if path.is_file():
        saved = json.loads(path.read_text(encoding="utf-8"))
        return Split(test_set, index, load_test_set(test_set).qrels(), saved["lists"], saved["doc_of"])
    split = collect(client, settings, test_set, index, depth)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"lists": split.lists, "doc_of": split.doc_of}), encoding="utf-8")
    return split


def prepare(client: OpenSearch, settings: Settings, test_set: str, index: str, depth: int) -> Prepared:
    split = cached_collect(client, settings, test_set, index, depth)
    mapped = client.indices.get_mapping(index=index)
    properties = next(iter(mapped.values()))["mappings"]["properties"]
    fields = tuple(f for f in BM25_FIELD_BOOSTS if f in properties)  # old indices lack `identifiers`
    snapshot = cached_snapshot(client, index, fields)
    texts = dict(_query_texts(test_set))
    terms = {
        query_id: {field: analyze(client, index, field, texts[query_id]) for field in fields}
        for query_id in split.lists
    }
    boosts = {name: {f: v for f, v in b.items() if f in fields} for name, b in BOOST_VARIANTS.items()}
    return Prepared(split, ExactIndex(snapshot), terms, boosts)


def _query_texts(test_set: str) -> list[tuple[str, str]]:
    return [(q.query_id, q.text) for q in load_test_set(test_set).queries()]


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


def _p(baseline: Mapping[str, float], other: Mapping[str, float]) -> float:
    return paired_test_by_query(baseline, other).p_value


def table(
    points: Sequence[Point],
    scored: Mapping[Point, Mapping[str, Scores]],
    baseline: Point,
    configurations: Sequence[str],
) -> list[str]:
    splits = list(scored[baseline])
    header = ["setting"]
    header += [f"{s} {c}{column}" for s in splits for c in configurations for column in ("", " Δ", " p")]
    rows = []
    for point in points:
        cells = [point.label + (" (current)" if point == baseline else "")]
        for split in splits:
            for configuration in configurations:
                mine = scored[point][split]
                base = scored[baseline][split]
                delta = mine.mean(configuration) - base.mean(configuration)
                p = _p(base.ndcg[configuration], mine.ndcg[configuration]) if point != baseline else 1.0
                cells += [f"{mine.mean(configuration):.4f}", f"{delta:+.4f}", f"{p:.3f}"]
        mean = sum(scored[point][s].mean("hybrid-minmax") for s in splits) / len(splits)
        rows.append([*cells, f"{mean:.4f}"])
    return markdown_table([*header, "mean hybrid-minmax"], rows)


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


def plot(scored: Mapping[Point, Mapping[str, Scores]], path: Path) -> None:
    """Per split, hybrid-minmax and bm25 nDCG@10 over the (k1, b) grid at the current boosts and depth."""
    grid = [p for p in scored if p.boosts == "current" and p.depths == (100, 100, 100)]
    splits = list(next(iter(scored.values())))
    figure = new_figure(5.0 * len(splits), 8.2)
    for column, split in enumerate(splits):
        for row, configuration in enumerate(("bm25", "hybrid-minmax")):
            axes = figure.add_subplot(2, len(splits), row * len(splits) + column + 1)
            values = [scored[p][split].mean(configuration) for p in grid]
            drawn = axes.scatter(
                [p.k1 for p in grid], [p.b for p in grid], c=values, cmap="viridis", s=260, marker="s"
            )
            best = max(grid, key=lambda p: scored[p][split].mean(configuration))
            axes.scatter([best.k1], [best.b], marker="*", s=220, c="red")
            axes.set_xlabel("k1")
            axes.set_ylabel("b")
            axes.set_title(f"{split}: {configuration} nDCG@10")
            figure.colorbar(drawn, ax=axes)
    save_figure(figure, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split",
        type=non_test_split,
        action="append",
        required=True,
        help="TEST_SET=INDEX, repeatable (dev/train splits only: settings are never chosen on test)",
    )
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    args = parser.parse_args(argv)
    settings = load_settings()
    client = make_client(settings.opensearch)
    started = time.monotonic()
    deepest = max(DEPTHS)
    prepared = {}
    for test_set, index in args.split:
        print(f"collecting {test_set} from {index}", file=sys.stderr)
        prepared[test_set] = prepare(client, settings, test_set, index, deepest)
    fusion = FusionParameters(
        dict(zip(COMPONENT_ORDER, settings.fusion.weights.in_order(), strict=True)),
        settings.fusion.rrf.rank_constant,
    )
    index_similarity = (settings.index.bm25.k1, settings.index.bm25.b)
    baseline = Point(*index_similarity)
    grid = [Point(k1, b) for k1, b in itertools.product(K1_VALUES, B_VALUES)]
    points = list(dict.fromkeys([baseline, *grid]))
    scored: dict[Point, dict[str, Scores]] = {}

    def run(candidates: Sequence[Point]) -> None:
        for point in candidates:
            if point not in scored:
                scored[point] = {s: score(p, point, fusion, deepest) for s, p in prepared.items()}

    run(points)
    best_similarity = choose(points, scored, baseline)
    boosts = [
        Point(k1, b, name)
        for k1, b in {index_similarity, (best_similarity.k1, best_similarity.b)}
        for name in BOOST_VARIANTS
    ]
    run(boosts)
    best_boosts = choose([*points, *boosts], scored, baseline)
    depth_grid = sorted(
        {(d, d, d) for d in DEPTHS} | {(100, 100, 200), (50, 50, 200), (200, 200, 100), (100, 50, 100)}
    )
    depths = [Point(*index_similarity, "current", d) for d in depth_grid]
    run(depths)
    parities = {s: parity(p, index_similarity) for s, p in prepared.items()}
    command = shlex.join(sys.argv[1:] if argv is None else list(argv))
    plot_path = args.out.with_suffix(".png")
    queries = ", ".join(f"{s} {len(p.split.lists)} queries over {p.split.index}" for s, p in prepared.items())
    by_mean = sorted(points, key=lambda p: -sum(s.mean("hybrid-minmax") for s in scored[p].values()))
    lines = [
        "# BM25 similarity, field boosts and candidate depth on non-test splits",
        "",
        "Command: `BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        f"python -m control_plane.benchmarks.bm25_grid {command}`",
        f"Machine: {describe_machine()}; load average {os.getloadavg()[0]:.1f}; "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {queries}; {time.monotonic() - started:.0f} s.",
        f"Models: dense {settings.models.dense}, sparse {settings.models.sparse}; fusion weights "
        f"{fusion.weights}, RRF k {settings.fusion.rrf.rank_constant}. nDCG@10 at the "
        "document level (best chunk); Δ and p (paired randomization) against the current setting.",
        "",
        "Reference check — mean top-10 overlap of the exact BM25 with OpenSearch's at the index's "
        f"k1 {index_similarity[0]:g} / b {index_similarity[1]:g}: "
        + ", ".join(f"{s} {v:.3f}" for s, v in parities.items()),
        "",
        f"![nDCG@10 over k1 and b]({plot_path.name})",
        "",
        "## k1 and b (current field boosts, depth 100 per component), best mean hybrid-minmax first",
        "",
        *table(by_mean, scored, baseline, ("bm25", "hybrid-minmax", "hybrid-rrf")),
        "",
        "Chosen by the rule (best mean hybrid-minmax, gaining at least "
        f"{MIN_GAIN} on average and losing on no split; else the current): **{best_similarity.label}**.",
        "",
        "## Field boosts",
        "",
        *table(boosts, scored, baseline, ("bm25", "hybrid-minmax")),
        "",
        f"Chosen: **{best_boosts.label}**.",
        "",
        "## Candidate depth per component (bm25/splade/dense; current similarity and boosts)",
        "",
        *table(depths, scored, baseline, ("hybrid-minmax", "hybrid-rrf")),
        "",
        "Recall@100 (hybrid-minmax) per depth: "
        + "; ".join(
            f"{p.depths}: " + ", ".join(f"{s} {scored[p][s].recall:.4f}" for s in scored[p]) for p in depths
        ),
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plot(scored, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
