"""Fusion settings chosen on non-test splits: a grid of min-max weights and RRF rank constants, scored on
each given split, as a markdown report with one plot per split.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m control_plane.benchmarks.fusion_grid \\
        --split nfcorpus/dev=chunks-nfcorpus --split scifact/train=chunks-scifact \\
        --out model_artifacts/reports/fusion-grid/dev.md

Per query: each component's top ``--depth`` chunks with their raw scores (the pipelines' pagination
depth), searched in OpenSearch with the registered query models (ml-commons encodes the text, as for any
direct client). Every grid point is then fused in-process by the formulas the pipelines are checked
against (control_plane/evaluation/exact.py: neural-search's min-max with its 0.001 floor, RRF), and
collapsed to documents by their best chunk, so the grid costs three searches per query. A setting is
chosen by its mean nDCG@10 over the splits (a setting that wins on one corpus only is suspect); the
current settings are the baseline each point is tested against (paired randomization test).
"""

from __future__ import annotations

import argparse
import itertools
import os
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch

from control_plane.benchmarks.arguments import non_test_split
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings, load_settings
from control_plane.evaluation.exact import (
    ChunkScores,
    Configuration,
    FusionParameters,
    configuration_chunks,
    to_documents,
)
from control_plane.evaluation.report import describe_machine
from control_plane.measures.metrics import Qrels, ndcg_at_k, recall_at_k
from control_plane.measures.significance import paired_randomization_test
from control_plane.mlcommons.registry import deployed_model_ids
from control_plane.query.components import (
    COMPONENT_ORDER,
    bm25_clause,
    dense_text_clause,
    sparse_text_clause,
)
from control_plane.reports.figures import new_figure, save_figure
from control_plane.testsets.catalog import load_test_set

RANK_CONSTANTS = (10, 20, 40, 60, 80, 100)
WEIGHT_STEP = 10  # weights in tenths


@dataclass(frozen=True)
class Setting:
    """One grid point: weighted min-max with ``weights`` (bm25, splade, dense), or RRF with ``k``."""

    fusion: str
    weights: tuple[float, float, float] = (0.0, 0.0, 0.0)
    k: int = 60

    @property
    def label(self) -> str:
        if self.fusion == "rrf":
            return f"rrf k={self.k}"
        return "min-max " + "/".join(f"{w:.2f}" for w in self.weights)


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


def component_clauses(text: str, ids: Mapping[str, str], depth: int) -> dict[str, dict[str, Any]]:
    """Each component alone, with the registered query-side models (raw scores, no fusion)."""
    return {
        "bm25": bm25_clause(text),
        "splade": sparse_text_clause(text, ids["sparse"]),
        "dense": dense_text_clause(text, depth, ids["dense_query"]),
    }


def collect(client: OpenSearch, settings: Settings, test_set: str, index: str, depth: int) -> Split:
    ids = deployed_model_ids(client, settings)
    missing = {"sparse", "dense_query"} - set(ids)
    if missing:
        raise SystemExit(f"models not deployed: {sorted(missing)}; run `biohybrid models register` first")
    data = load_test_set(test_set)
    lists: dict[str, dict[str, ChunkScores]] = {}
    doc_of: dict[str, str] = {}
    queries = list(data.queries())
    for number, query in enumerate(queries, start=1):
        lists[query.query_id] = {}
        for component, clause in component_clauses(query.text, ids, depth).items():
            body = {"size": depth, "_source": ["doc_id"], "query": clause}
            hits = client.search(index=index, body=body)["hits"]["hits"]
            lists[query.query_id][component] = {h["_id"]: float(h["_score"]) for h in hits}
            doc_of.update({h["_id"]: h["_source"]["doc_id"] for h in hits})
        if number % 100 == 0:
            print(f"  {test_set}: {number}/{len(queries)} queries", file=sys.stderr)
    return Split(test_set, index, data.qrels(), lists, doc_of)


def per_query_ndcg(split: Split, setting: Setting, depth: int) -> tuple[dict[str, float], float]:
    """nDCG@10 per query and mean Recall@100 of ``setting`` on ``split`` (document level)."""
    configuration = Configuration(
        setting.label, COMPONENT_ORDER, "weighted" if setting.fusion != "rrf" else "rrf"
    )
    parameters = FusionParameters(dict(zip(COMPONENT_ORDER, setting.weights, strict=True)), setting.k)
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


def score_grid(splits: Sequence[Split], settings: Sequence[Setting], depth: int) -> list[Scored]:
    scored = []
    for setting in settings:
        ndcg, recall = {}, {}
        for split in splits:
            ndcg[split.test_set], recall[split.test_set] = per_query_ndcg(split, setting, depth)
        scored.append(Scored(setting, ndcg, recall))
    return scored


def _p(baseline: Scored, other: Scored, split: str) -> float:
    queries = sorted(baseline.ndcg[split])
    test = paired_randomization_test(
        [baseline.ndcg[split][q] for q in queries], [other.ndcg[split][q] for q in queries]
    )
    return test.p_value


def render(
    scored: Sequence[Scored], baselines: Mapping[str, Scored], header: list[str], top: int = 12
) -> str:
    splits = list(next(iter(scored)).ndcg)
    columns = " | ".join(f"{s} nDCG@10 | Δ | p | R@100" for s in splits)
    lines = [*header, "", f"| setting | mean nDCG@10 | {columns} |", "|---" * (2 + 4 * len(splits)) + "|"]

    def row(item: Scored, note: str = "") -> str:
        baseline = baselines["rrf" if item.setting.fusion == "rrf" else "weighted"]
        cells = " | ".join(
            f"{item.mean(s):.4f} | {item.mean(s) - baseline.mean(s):+.4f} | {_p(baseline, item, s):.3f} "
            f"| {item.recall[s]:.4f}"
            for s in splits
        )
        return f"| {item.setting.label}{note} | {item.overall():.4f} | {cells} |"

    weighted = sorted((s for s in scored if s.setting.fusion != "rrf"), key=lambda s: -s.overall())
    rrf = sorted((s for s in scored if s.setting.fusion == "rrf"), key=lambda s: s.setting.k)
    singles = [s for s in weighted if max(s.setting.weights) == 1.0]
    lines += [row(baselines["weighted"], " (current)")]
    lines += [row(item) for item in weighted[:top]]
    lines += [row(item, " (one component)") for item in sorted(singles, key=lambda s: s.setting.weights)]
    lines += [row(item, " (current)" if item.setting == baselines["rrf"].setting else "") for item in rrf]
    best_weighted, best_rrf = weighted[0], max(rrf, key=lambda s: s.overall())
    lines += [
        "",
        "Δ and p: against the current setting of the same fusion (min-max or RRF).",
        "",
        f"Best min-max (mean over the splits): {best_weighted.setting.label}, {best_weighted.overall():.4f} "
        f"(current {baselines['weighted'].overall():.4f}). Best RRF: {best_rrf.setting.label}, "
        f"{best_rrf.overall():.4f} (current {baselines['rrf'].overall():.4f}).",
    ]
    return "\n".join(lines) + "\n"


def plot(scored: Sequence[Scored], path: Path) -> None:
    """Per split, mean nDCG@10 over the weight simplex (bm25 on x, dense on y, splade the rest)."""
    splits = list(next(iter(scored)).ndcg)
    figure = new_figure(5.2 * len(splits), 4.4)
    for position, split in enumerate(splits, start=1):
        axes = figure.add_subplot(1, len(splits), position)
        points = [s for s in scored if s.setting.fusion != "rrf"]
        xs = [s.setting.weights[0] for s in points]
        ys = [s.setting.weights[2] for s in points]
        values = [s.mean(split) for s in points]
        drawn = axes.scatter(xs, ys, c=values, cmap="viridis", s=140, marker="s")
        best = max(points, key=lambda s: s.mean(split))
        axes.scatter([best.setting.weights[0]], [best.setting.weights[2]], marker="*", s=220, c="red")
        axes.set_xlabel("bm25 weight")
        axes.set_ylabel("dense weight (splade = 1 - bm25 - dense)")
        axes.set_title(f"{split}: min-max nDCG@10")
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
    parser.add_argument("--depth", type=int, help="chunks per component (default: search.candidate_depth)")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (the plot goes beside it)")
    args = parser.parse_args(argv)
    settings = load_settings()
    depth = args.depth or settings.search.candidate_depth
    client = make_client(settings.opensearch)
    started = time.monotonic()
    splits = [collect(client, settings, test_set, index, depth) for test_set, index in args.split]
    bm25, splade, dense = settings.fusion.weights.in_order()
    current = [
        Setting("weighted", (bm25, splade, dense)),
        Setting("rrf", k=settings.fusion.rrf.rank_constant),
    ]
    grid = [Setting("weighted", w) for w in weight_grid()] + [Setting("rrf", k=k) for k in RANK_CONSTANTS]
    scored = score_grid(splits, list(dict.fromkeys([*current, *grid])), depth)
    by_setting = {s.setting: s for s in scored}
    baselines = {"weighted": by_setting[current[0]], "rrf": by_setting[current[1]]}
    plot_path = args.out.with_suffix(".png")
    command = shlex.join(sys.argv[1:] if argv is None else list(argv))
    queries = ", ".join(f"{s.test_set} {len(s.lists)} queries over {s.index}" for s in splits)
    header = [
        "# Fusion grid: min-max weights and RRF rank constants on non-test splits",
        "",
        "Command: `BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        f"python -m control_plane.benchmarks.fusion_grid {command}`",
        f"Machine: {describe_machine()}; load average {os.getloadavg()[0]:.1f}; "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {queries}; {time.monotonic() - started:.0f} s.",
        f"Models: dense {settings.models.dense}, sparse {settings.models.sparse}; {depth} chunks per "
        "component, fused in-process, documents ranked by their best chunk. Weights are bm25/splade/dense.",
        "",
        f"![min-max nDCG@10 over the weights]({plot_path.name})",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(scored, baselines, header), encoding="utf-8")
    plot(scored, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
