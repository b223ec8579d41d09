"""The learned ranker's training and figures: LightGBM LambdaRank on the train split's candidates, every
method's per-query nDCG@10 on the other splits, the comparison with the fused order, the shipping
decision and the trees' feature importance."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import lightgbm as lgb
import numpy as np

from benchmarks.learned_ranker.measure import Candidates
from control_plane.fusion.rerank_blend import blended_order, blended_scores
from control_plane.measures.metrics import Qrels, ndcg_at_k
from control_plane.measures.significance import paired_test_by_query
from control_plane.models.ranker_features import FEATURE_NAMES, LEXICAL_FEATURES, list_features

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
FUSED = "fused"


@dataclass(frozen=True)
class MethodScore:
    """One method on one split: mean nDCG@10, its difference from the fused order and the paired p."""

    method: str
    mean: float
    delta: float
    p_value: float


@dataclass(frozen=True)
class SplitScores:
    split: str
    queries: int
    methods: tuple[MethodScore, ...]


@dataclass(frozen=True)
class Verdict:
    """A ranker ships only if it wins on dev (``wins``) and loses on no other split (``losses``: split
    and its nDCG@10 difference from the fused order)."""

    method: str
    wins: bool
    dev_p_value: float
    losses: tuple[tuple[str, float], ...]

    @property
    def ships(self) -> bool:
        return self.wins and not self.losses


@dataclass(frozen=True)
class Importance:
    """A trained ranker's size and each feature's share of the total gain, largest first."""

    name: str
    trees: int
    shares: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Summary:
    dev: str
    splits: tuple[SplitScores, ...]
    verdicts: tuple[Verdict, ...]
    importances: tuple[Importance, ...]


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
    out = {FUSED: _documents(item.doc_ids, range(n))}
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


def _mean(values: Mapping[str, float]) -> float:
    return sum(values.values()) / max(len(values), 1)


def split_scores(split: str, scored: Mapping[str, Mapping[str, float]]) -> SplitScores:
    """Every method of one split against the fused order (paired randomization test by query)."""
    base = scored[FUSED]
    methods = tuple(
        MethodScore(
            method,
            _mean(values),
            _mean(values) - _mean(base),
            1.0 if method == FUSED else paired_test_by_query(base, values).p_value,
        )
        for method, values in scored.items()
    )
    return SplitScores(split, len(base), methods)


def verdicts(results: Mapping[str, Mapping[str, Mapping[str, float]]], dev: str) -> list[Verdict]:
    """A ranker ships only if it beats the fused order and the default blend on dev (p < 0.05) and loses
    on no other split: one that wins on NFCorpus alone is suspect."""

    def mean(split: str, method: str) -> float:
        return _mean(results[split][method])

    out = []
    blend = next(m for m in results[dev] if m.startswith("ce blend"))
    for method in (m for m in results[dev] if m.startswith("ranker")):
        p = paired_test_by_query(results[dev][FUSED], results[dev][method]).p_value
        wins = mean(dev, method) > max(mean(dev, FUSED), mean(dev, blend)) and p < 0.05
        losses = tuple(
            (s, mean(s, method) - mean(s, FUSED))
            for s in results
            if s != dev and mean(s, method) < mean(s, FUSED)
        )
        out.append(Verdict(method, wins, p, losses))
    return out


def importance(name: str, booster: lgb.Booster) -> Importance:
    gains = booster.feature_importance(importance_type="gain")
    total = float(sum(gains)) or 1.0
    ranked = sorted(zip(booster.feature_name(), gains, strict=True), key=lambda x: -x[1])
    return Importance(
        name, booster.best_iteration or booster.num_trees(), tuple((f, g / total) for f, g in ranked)
    )


def summarize(
    results: Mapping[str, Mapping[str, Mapping[str, float]]], dev: str, rankers: Mapping[str, lgb.Booster]
) -> Summary:
    """The report's figures: split -> method -> query -> nDCG@10 compared, decided and the rankers sized."""
    return Summary(
        dev,
        tuple(split_scores(split, scored) for split, scored in results.items()),
        tuple(verdicts(results, dev)),
        tuple(importance(name, booster) for name, booster in rankers.items()),
    )
