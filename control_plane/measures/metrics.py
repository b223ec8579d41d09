"""Retrieval metrics as small pure functions, dispatched by name (``"ndcg@10"``, ``"map"``, ...).

Every per-query value agrees with trec_eval (and so with pytrec_eval) at its default relevance
level of 1, so figures from this module can be compared with published BEIR/Anserini numbers:

* Ranking: documents are ordered by score descending, ties broken by doc id descending (plain
  string comparison), which is trec_eval's ``comp_sim_docno`` rule. The rank a run file states is
  ignored, exactly as trec_eval ignores it; only scores decide.
* Relevance: a document is relevant when its grade is > 0; grades <= 0 and unjudged documents
  are non-relevant and contribute no gain.

Name -> trec_eval measure: ``ndcg@k`` = ``ndcg_cut_k``, ``recall@k`` = ``recall_k``,
``p@k`` = ``P_k``, ``map`` = ``map``, ``map@k`` = ``map_cut_k``, ``mrr@k`` = ``recip_rank``
computed on the ranking cut at k (trec_eval's ``recip_rank`` has no cutoff).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

Judgments = Mapping[str, int]
"""Relevance grades of one query: doc id -> grade (grade <= 0 means non-relevant)."""

Ranking = Sequence[str]
"""Doc ids of one query, best first."""

Qrels = Mapping[str, Judgments]
"""query id -> doc id -> grade."""

Run = Mapping[str, Mapping[str, float]]
"""query id -> doc id -> retrieval score (higher is better)."""

QueryMetric = Callable[[Judgments, Ranking], float]


def rank_documents(scores: Mapping[str, float]) -> list[str]:
    """Doc ids by score descending, ties by doc id descending: trec_eval's order, so results agree."""
    return sorted(scores, key=lambda doc_id: (scores[doc_id], doc_id), reverse=True)


def _is_relevant(judgments: Judgments, doc_id: str) -> bool:
    return judgments.get(doc_id, 0) > 0


def _relevant_count(judgments: Judgments) -> int:
    return sum(1 for grade in judgments.values() if grade > 0)


def _discounted_gain(grades: Sequence[int]) -> float:
    """Sum of grade / log2(rank + 1) over 1-based ranks; non-positive grades add nothing."""
    return sum(grade / math.log2(rank + 1) for rank, grade in enumerate(grades, start=1) if grade > 0)


def recall_at_k(judgments: Judgments, ranking: Ranking, k: int) -> float:
    """Share of the query's relevant documents found in the top k (0 when none is relevant)."""
    relevant_total = _relevant_count(judgments)
    if relevant_total == 0:
        return 0.0
    found = sum(1 for doc_id in ranking[:k] if _is_relevant(judgments, doc_id))
    return found / relevant_total


def precision_at_k(judgments: Judgments, ranking: Ranking, k: int) -> float:
    """Relevant documents in the top k divided by k, even when fewer than k were retrieved (trec_eval P_k)."""
    return sum(1 for doc_id in ranking[:k] if _is_relevant(judgments, doc_id)) / k


def mrr_at_k(judgments: Judgments, ranking: Ranking, k: int) -> float:
    """Reciprocal rank of the first relevant document within the top k; 0 when there is none."""
    for rank, doc_id in enumerate(ranking[:k], start=1):
        if _is_relevant(judgments, doc_id):
            return 1.0 / rank
    return 0.0


def ndcg_at_k(judgments: Judgments, ranking: Ranking, k: int) -> float:
    """Graded nDCG@k with trec_eval's linear gain (``ndcg_cut``), not the exponential 2**rel - 1.

    DCG@k = sum over ranks r <= k of grade(r) / log2(r + 1); the ideal DCG@k applies the same sum to
    all judged relevant grades of the query sorted descending, whether retrieved or not. Linear gain
    is what trec_eval, pytrec_eval and the BEIR tables use, so scores stay comparable with them.
    """
    ideal = _discounted_gain(sorted((grade for grade in judgments.values() if grade > 0), reverse=True)[:k])
    if ideal == 0.0:
        return 0.0
    return _discounted_gain([judgments.get(doc_id, 0) for doc_id in ranking[:k]]) / ideal


def average_precision(judgments: Judgments, ranking: Ranking, k: int | None = None) -> float:
    """Mean of precision at each relevant rank (within k if given), over ALL relevant documents.

    Dividing by every relevant document, not by min(k, relevant), is trec_eval's ``map_cut`` rule:
    relevant documents the cut hides count as missed.
    """
    relevant_total = _relevant_count(judgments)
    if relevant_total == 0:
        return 0.0
    found = 0
    precision_sum = 0.0
    for rank, doc_id in enumerate(ranking if k is None else ranking[:k], start=1):
        if _is_relevant(judgments, doc_id):
            found += 1
            precision_sum += found / rank
    return precision_sum / relevant_total


_CUTOFF_METRICS: dict[str, Callable[[Judgments, Ranking, int], float]] = {
    "ndcg": ndcg_at_k,
    "recall": recall_at_k,
    "mrr": mrr_at_k,
    "p": precision_at_k,
    "map": average_precision,
}
_WHOLE_RANKING_METRICS: dict[str, QueryMetric] = {"map": average_precision}
VALID_METRIC_NAMES = "ndcg@K, recall@K, mrr@K, p@K, map, map@K (K a positive integer)"


def _unknown_metric(name: str) -> ValueError:
    return ValueError(f"unknown metric {name!r}; valid metrics: {VALID_METRIC_NAMES}")


def metric_by_name(name: str) -> QueryMetric:
    """The per-query function for a name such as ``"ndcg@10"`` (case-insensitive); ValueError if unknown."""
    family, has_cutoff, cutoff_text = name.strip().lower().partition("@")
    if not has_cutoff:
        if family in _WHOLE_RANKING_METRICS:
            return _WHOLE_RANKING_METRICS[family]
        raise _unknown_metric(name)
    metric = _CUTOFF_METRICS.get(family)
    if metric is None or not (cutoff_text.isascii() and cutoff_text.isdigit()) or int(cutoff_text) <= 0:
        raise _unknown_metric(name)
    cutoff = int(cutoff_text)
    return lambda judgments, ranking: metric(judgments, ranking, cutoff)


def _evaluated_query_ids(qrels: Qrels) -> list[str]:
    """Queries with at least one relevant document: every metric is 0 for the rest, so they only dilute."""
    return [query_id for query_id, judgments in qrels.items() if _relevant_count(judgments) > 0]


def per_query(qrels: Qrels, run: Run, metrics: Sequence[str]) -> dict[str, dict[str, float]]:
    """query id -> metric name -> value, for every query in qrels with a relevant document.

    A query the run lacks gets 0 for every metric (trec_eval ``-c``; pytrec_eval instead omits it,
    which would silently raise the mean). Run queries absent from qrels are ignored, as in trec_eval.
    """
    resolved = {name: metric_by_name(name) for name in metrics}
    results: dict[str, dict[str, float]] = {}
    for query_id in _evaluated_query_ids(qrels):
        judgments = qrels[query_id]
        ranking = rank_documents(run.get(query_id, {}))
        results[query_id] = {name: metric(judgments, ranking) for name, metric in resolved.items()}
    return results


def evaluate(qrels: Qrels, run: Run, metrics: Sequence[str]) -> dict[str, float]:
    """Metric name -> mean over the queries of ``per_query`` (qrels queries with a relevant document).

    Raises ValueError for an unknown metric name or when no query in qrels has a relevant document,
    since a mean over nothing would hide a wrong qrels file.
    """
    scores = per_query(qrels, run, metrics)
    if not scores:
        raise ValueError("no query in qrels has a relevant document (grade > 0); nothing to evaluate")
    return {name: math.fsum(values[name] for values in scores.values()) / len(scores) for name in metrics}
