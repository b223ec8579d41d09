"""A learned ranker over the fused candidates (issue 14, option c): LightGBM LambdaRank trained on
NFCorpus train judgments, compared on dev with the fused order and the cross-encoder blend.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m control_plane.benchmarks.learned_ranker \\
        --train nfcorpus/train=chunks-nfcorpus --dev nfcorpus/dev=chunks-nfcorpus \\
        --check scifact/train=chunks-scifact --out model_artifacts/reports/learned-ranker/dev.md

Per query: the pipeline's fused top ``--depth`` chunks for the plain-text query (ml-commons encodes it,
as for any client) and the served cross-encoder's raw scores of them (`/v1/rerank/<model>`, the
endpoint OpenSearch's rerank processor calls); both are cached under .cache/learned-ranker by index
state, model and query set, so a re-run trains and scores without searching again. Features are what a
model behind the rerank connector can compute (control_plane/models/ranker_features.py): position,
lexical matches within the list, and optionally the cross-encoder's score. Two rankers are trained —
``lexical`` (no cross-encoder: no model inference at query time) and ``full`` — on the train queries,
with early stopping on a fifth of them held out by query id hash; dev and the check split are never
seen in training. The check split is another corpus (the ranker never trained on it; note that the
cross-encoder ce-minilm did train on scifact/train, so its columns there are optimistic).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import lightgbm as lgb
import numpy as np
import requests
from opensearchpy import OpenSearch

from control_plane.benchmarks.arguments import non_test_split
from control_plane.benchmarks.rerank_blend import fused_and_scored
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.evaluation.report import describe_machine
from control_plane.evaluation.snapshot import snapshot_key
from control_plane.fusion.rerank_blend import blended_order, blended_scores
from control_plane.locations import REPOSITORY_ROOT
from control_plane.measures.metrics import Qrels, ndcg_at_k
from control_plane.measures.significance import paired_test_by_query
from control_plane.models.ranker_features import FEATURE_NAMES, LEXICAL_FEATURES, list_features
from control_plane.reports.figures import new_figure, save_figure
from control_plane.reports.markdown import markdown_table
from control_plane.testsets.catalog import load_test_set

CACHE_DIR = REPOSITORY_ROOT / ".cache" / "learned-ranker"
VARIANTS: Mapping[str, tuple[str, ...]] = {"lexical": LEXICAL_FEATURES, "full": FEATURE_NAMES}
PARAMETERS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "eval_at": [10],
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.9,
    "lambdarank_truncation_level": 20,
    "verbose": -1,
    "seed": 13,
    "num_threads": 2,
}


@dataclass(frozen=True)
class Candidates:
    """One query's fused chunks, best first, with their texts and the cross-encoder's raw scores."""

    query_id: str
    query: str
    doc_ids: list[str]
    texts: list[str]
    model_scores: list[float]


def collect(
    client: OpenSearch,
    index: str,
    pipeline: str,
    service_url: str,
    model: str,
    queries: Sequence[tuple[str, str]],
    depth: int,
    label: str,
) -> list[Candidates]:
    """The candidates of every query, from the cache when the index, model and queries are unchanged."""
    key = hashlib.sha256(
        json.dumps([snapshot_key(client, index), pipeline, model, depth, queries]).encode()
    ).hexdigest()[:12]
    path = CACHE_DIR / f"{label.replace('/', '-')}-{index}-{key}.jsonl"
    if path.is_file():
        return [Candidates(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    out = []
    session = requests.Session()
    for number, (query_id, text) in enumerate(queries, start=1):
        hits, scores = fused_and_scored(
            client, index, pipeline, session, f"{service_url}/v1/rerank/{model}", text, depth, depth
        )
        texts = [h["_source"]["text"] for h in hits]
        out.append(Candidates(query_id, text, [h["_source"]["doc_id"] for h in hits], texts, scores))
        if number % 100 == 0:
            print(f"  {label}: {number}/{len(queries)} queries", file=sys.stderr)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(asdict(c)) + "\n" for c in out), encoding="utf-8")
    return out


def _held_out(query_id: str, share: int = 5) -> bool:
    return int(hashlib.sha256(query_id.encode()).hexdigest(), 16) % share == 0


def design(
    items: Sequence[Candidates], qrels: Qrels, columns: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Feature matrix, graded labels (the chunk's document's judgment) and group sizes."""
    picks = [FEATURE_NAMES.index(c) for c in columns]
    rows, labels, groups = [], [], []
    for item in items:
        if not item.texts:
            continue
        for doc_id, row in zip(
            item.doc_ids, list_features(item.query, item.texts, item.model_scores), strict=True
        ):
            rows.append([row[i] for i in picks])
            labels.append(int(qrels.get(item.query_id, {}).get(doc_id, 0)))
        groups.append(len(item.texts))
    return np.asarray(rows, dtype=np.float64), np.asarray(labels, dtype=np.int32), groups


def train(items: Sequence[Candidates], qrels: Qrels, columns: Sequence[str]) -> lgb.Booster:
    fit = [i for i in items if not _held_out(i.query_id)]
    stop = [i for i in items if _held_out(i.query_id)]
    x, y, g = design(fit, qrels, columns)
    xs, ys, gs = design(stop, qrels, columns)
    train_set = lgb.Dataset(x, y, group=g, feature_name=list(columns))
    stop_set = lgb.Dataset(xs, ys, group=gs, reference=train_set)
    return lgb.train(
        PARAMETERS,
        train_set,
        num_boost_round=500,
        valid_sets=[stop_set],
        callbacks=[lgb.early_stopping(40, verbose=False)],
    )


def _documents(doc_ids: Sequence[str], order: Sequence[int]) -> list[str]:
    return list(dict.fromkeys(doc_ids[i] for i in order))


def rankings(
    item: Candidates, rankers: Mapping[str, lgb.Booster], blend: tuple[int, float]
) -> dict[str, list[str]]:
    """Document rankings of one query under every method (best chunk per document)."""
    n = len(item.doc_ids)
    depth, weight = blend
    out = {"fused": _documents(item.doc_ids, range(n))}
    blended = blended_scores(item.model_scores[:depth], n, weight)
    out[f"ce blend {depth}:{weight:g} (default)"] = _documents(item.doc_ids, blended_order(blended))
    plain = sorted(range(n), key=lambda i: (-item.model_scores[i], i))
    out["ce alone"] = _documents(item.doc_ids, plain)
    rows = (
        np.asarray(list_features(item.query, item.texts, item.model_scores), dtype=np.float64) if n else None
    )
    for name, booster in rankers.items():
        if rows is None:
            out[f"ranker {name}"] = []
            continue
        picks = [FEATURE_NAMES.index(c) for c in booster.feature_name()]
        predicted = booster.predict(rows[:, picks])
        out[f"ranker {name}"] = _documents(item.doc_ids, sorted(range(n), key=lambda i: (-predicted[i], i)))
    return out


def score(
    items: Sequence[Candidates], qrels: Qrels, rankers: Mapping[str, lgb.Booster], blend: tuple[int, float]
) -> dict[str, dict[str, float]]:
    """Method -> query -> nDCG@10."""
    out: dict[str, dict[str, float]] = {}
    for item in items:
        for method, ranking in rankings(item, rankers, blend).items():
            out.setdefault(method, {})[item.query_id] = ndcg_at_k(qrels[item.query_id], ranking, 10)
    return out


def table(split: str, scored: Mapping[str, Mapping[str, float]]) -> list[str]:
    base = scored["fused"]
    rows = []
    for method, values in scored.items():
        mean = sum(values.values()) / max(len(values), 1)
        delta = mean - sum(base.values()) / max(len(base), 1)
        p = 1.0 if method == "fused" else paired_test_by_query(base, values).p_value
        rows.append([method, f"{mean:.4f}", f"{delta:+.4f}", f"{p:.3f}"])
    heading = [f"### {split} ({len(base)} queries)", ""]
    return heading + markdown_table(["method", "nDCG@10", "Δ vs fused", "p"], rows)


def decision(results: Mapping[str, Mapping[str, Mapping[str, float]]], dev: str) -> list[str]:
    """A ranker ships only if it beats the fused order and the default blend on dev (p < 0.05) and loses
    on no other split: one that wins on NFCorpus alone is suspect."""

    def mean(split: str, method: str) -> float:
        values = results[split][method]
        return sum(values.values()) / max(len(values), 1)

    lines = ["## Decision", ""]
    blend = next(m for m in results[dev] if m.startswith("ce blend"))
    for method in (m for m in results[dev] if m.startswith("ranker")):
        base = results[dev]["fused"]
        p = paired_test_by_query(base, results[dev][method])
        wins = mean(dev, method) > max(mean(dev, "fused"), mean(dev, blend)) and p.p_value < 0.05
        losses = [s for s in results if s != dev and mean(s, method) < mean(s, "fused")]
        verdict = "ships" if wins and not losses else "not shipped"
        why = [] if wins else [f"no significant win on {dev} (p {p.p_value:.3f})"]
        why += [f"below the fused order on {s} ({mean(s, method) - mean(s, 'fused'):+.4f})" for s in losses]
        lines.append(f"- {method}: **{verdict}**" + (f": {'; '.join(why)}" if why else ""))
    return lines


def plot(results: Mapping[str, Mapping[str, Mapping[str, float]]], path: Path) -> None:
    figure = new_figure(9, 4.2)
    axes = figure.add_subplot(1, 1, 1)
    methods = list(next(iter(results.values())))
    width = 0.8 / len(results)
    for offset, (split, scored) in enumerate(results.items()):
        base = sum(scored["fused"].values()) / max(len(scored["fused"]), 1)
        deltas = [sum(scored[m].values()) / max(len(scored[m]), 1) - base for m in methods]
        axes.bar([i + offset * width for i in range(len(methods))], deltas, width, label=split)
    axes.axhline(0, color="black", linewidth=0.8)
    axes.set_xticks([i + width * (len(results) - 1) / 2 for i in range(len(methods))], methods, rotation=15)
    axes.set_ylabel("nDCG@10 minus the fused order")
    axes.legend()
    save_figure(figure, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--train", type=non_test_split, required=True, help="TEST_SET=INDEX the ranker learns from"
    )
    parser.add_argument(
        "--train-queries", type=int, default=800, help="train queries used (a fixed sample by id hash)"
    )
    parser.add_argument("--dev", type=non_test_split, required=True, help="TEST_SET=INDEX that chooses")
    parser.add_argument(
        "--check", type=non_test_split, action="append", default=[], help="other splits, reported"
    )
    parser.add_argument(
        "--check-queries", type=int, help="queries per check split (a fixed sample by id hash; default all)"
    )
    parser.add_argument("--pipeline", default="hybrid-minmax")
    parser.add_argument("--depth", type=int, help="candidates per query (default: the rerank depth)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    settings = load_settings()
    depth = args.depth or settings.models.rerank_top_n
    blend = (settings.models.rerank_top_n, settings.models.rerank_model_weight)
    client = make_client(settings.opensearch)
    service = settings.models.service_url
    model = settings.models.rerank
    started = time.monotonic()

    def gather(split: tuple[str, str], limit: int | None = None) -> tuple[list[Candidates], Qrels]:
        data = load_test_set(split[0])
        queries = [(q.query_id, q.text) for q in data.queries()]
        if limit is not None:
            queries = sorted(queries, key=lambda q: hashlib.sha256(q[0].encode()).hexdigest())[:limit]
        print(f"collecting {split[0]} ({len(queries)} queries) from {split[1]}", file=sys.stderr)
        return collect(
            client, split[1], args.pipeline, service, model, queries, depth, split[0]
        ), data.qrels()

    train_items, train_qrels = gather(args.train, args.train_queries)
    rankers = {name: train(train_items, train_qrels, columns) for name, columns in VARIANTS.items()}
    results = {}
    for split in [args.dev, *args.check]:
        items, qrels = gather(split, None if split == args.dev else args.check_queries)
        results[split[0]] = score(items, qrels, rankers, blend)
    command = shlex.join(sys.argv[1:] if argv is None else list(argv))
    plot_path = args.out.with_suffix(".png")
    lines = [
        "# Learned ranker over the fused candidates (LightGBM LambdaRank)",
        "",
        "Command: `BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        f"python -m control_plane.benchmarks.learned_ranker {command}`",
        f"Machine: {describe_machine()}; load average {os.getloadavg()[0]:.1f}; "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {time.monotonic() - started:.0f} s.",
        f"Candidates: pipeline {args.pipeline}, top {depth} chunks; cross-encoder {model}; trained on "
        f"{len(train_items)} {args.train[0]} queries (a fifth of them for early stopping). Documents ranked "
        "by their best chunk; "
        "Δ and p (paired randomization) against the fused order.",
        "",
        f"![nDCG@10 minus the fused order]({plot_path.name})",
        "",
    ]
    for split, scored in results.items():
        lines += [*table(split, scored), ""]
    lines += [*decision(results, args.dev[0]), "", "## Trees and feature importance (gain)", ""]
    for name, booster in rankers.items():
        gains = booster.feature_importance(importance_type="gain")
        total = float(sum(gains)) or 1.0
        shares = ", ".join(
            f"{f} {g / total:.2f}"
            for f, g in sorted(zip(booster.feature_name(), gains, strict=True), key=lambda x: -x[1])
        )
        lines.append(f"- {name}: {booster.best_iteration or booster.num_trees()} trees; {shares}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plot(results, plot_path)
    print(f"wrote {args.out} and {plot_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
