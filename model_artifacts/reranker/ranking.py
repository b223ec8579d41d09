"""Ranking measures for validation and export parity (plain numpy, no model code).

* ``pairwise_auc``: over every (relevant, non-relevant) pair of passages of the same query, the share the
  scores order correctly (ties count half); pairs are pooled over queries.
* ``rerank_order``: passage ids by score, ties kept in first-stage order.
* ``document_ranking``: passages mapped to their documents, first occurrence kept (how the evaluation
  turns a chunk ranking into a document ranking).
* ``pair_order_agreement`` / ``top_k_overlap``: how far a quantised model moves the order of fp32's.
* ``dev_metrics``: the validation figures of a run (AUC, nDCG@10 of the first stage and reranked).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from control_plane.measures.metrics import ndcg_at_k


def pairwise_auc(scores: Sequence[Sequence[float]], labels: Sequence[Sequence[int]]) -> float:
    """Pooled within-query AUC; ``labels`` are grades (> 0 relevant). Raises when no query has a pair."""
    correct, pairs = 0.0, 0
    for query_scores, query_labels in zip(scores, labels, strict=True):
        s = np.asarray(query_scores, dtype=np.float64)
        relevant = np.asarray(query_labels) > 0
        pos, neg = s[relevant], s[~relevant]
        if not len(pos) or not len(neg):
            continue
        diff = pos[:, None] - neg[None, :]
        correct += float((diff > 0).sum()) + 0.5 * float((diff == 0).sum())
        pairs += diff.size
    if pairs == 0:
        raise ValueError("no query has both a relevant and a non-relevant passage: AUC is undefined")
    return correct / pairs


def rerank_order(passage_ids: Sequence[str], scores: Sequence[float]) -> list[str]:
    """``passage_ids`` by score descending; equal scores keep their first-stage order."""
    order = sorted(range(len(passage_ids)), key=lambda i: (-scores[i], i))
    return [passage_ids[i] for i in order]


def document_ranking(passage_ids: Sequence[str], doc_of: Mapping[str, str]) -> list[str]:
    """The documents of ``passage_ids`` in order, each at its first passage's rank."""
    seen: dict[str, None] = {}
    for passage in passage_ids:
        seen.setdefault(doc_of[passage], None)
    return list(seen)


def pair_order_agreement(reference: Sequence[float], other: Sequence[float]) -> float:
    """Share of passage pairs (i < j) that ``other`` orders as ``reference`` does (ties must stay ties)."""
    a = np.asarray(reference, dtype=np.float64)
    b = np.asarray(other, dtype=np.float64)
    if len(a) != len(b) or len(a) < 2:
        raise ValueError("need two score lists of the same length ≥ 2")
    upper = np.triu_indices(len(a), k=1)
    same = np.sign(a[:, None] - a[None, :])[upper] == np.sign(b[:, None] - b[None, :])[upper]
    return float(same.mean())


def top_k_overlap(reference: Sequence[float], other: Sequence[float], k: int) -> float:
    """Share of ``reference``'s top k (by score, ties by index) that ``other`` also puts in its top k."""
    top_a = set(np.lexsort((np.arange(len(reference)), -np.asarray(reference)))[:k].tolist())
    top_b = set(np.lexsort((np.arange(len(other)), -np.asarray(other)))[:k].tolist())
    return len(top_a & top_b) / min(k, len(reference))


@dataclass(frozen=True)
class DevMetrics:
    """Reranking the first stage's top passages of dev queries: AUC, and nDCG@10 before and after."""

    queries: int
    depth: int
    auc: float
    ndcg10_first_stage: float
    ndcg10_reranked: float


def dev_metrics(
    candidates: Sequence[Sequence[str]],
    grades: Sequence[Mapping[str, int]],
    scores: Sequence[Sequence[float]],
    doc_of: Mapping[str, str],
) -> DevMetrics:
    """Passages take their document's grade; nDCG@10 is over documents (first passage wins), with the
    ideal taken from all of the query's judgments, as the evaluation computes it."""
    labels = [[g.get(doc_of[p], 0) for p in c] for c, g in zip(candidates, grades, strict=True)]
    first, reranked = [], []
    for c, g, s in zip(candidates, grades, scores, strict=True):
        first.append(ndcg_at_k(g, document_ranking(c, doc_of), 10))
        reranked.append(ndcg_at_k(g, document_ranking(rerank_order(c, s), doc_of), 10))
    return DevMetrics(
        queries=len(candidates),
        depth=max((len(c) for c in candidates), default=0),
        auc=pairwise_auc(scores, labels),
        ndcg10_first_stage=float(np.mean(first)),
        ndcg10_reranked=float(np.mean(reranked)),
    )
