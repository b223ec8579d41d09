"""Validation and parity measures of the cross-encoder: hand-computed values."""

from __future__ import annotations

import math

import pytest

from model_artifacts.reranker.ranking import (
    dev_metrics,
    document_ranking,
    pair_order_agreement,
    pairwise_auc,
    rerank_order,
    top_k_overlap,
)


def test_auc_pools_within_query_pairs_and_counts_ties_half() -> None:
    scores = [[0.9, 0.1, 0.5], [0.2, 0.2, 0.7], [0.3, 0.4]]
    labels = [[2, 0, 0], [1, 0, 0], [0, 0]]  # the last query has no relevant passage: no pairs
    # query 1: 2 of 2 pairs right; query 2: one tie (0.5), one wrong → (2 + 0.5) / 4
    assert pairwise_auc(scores, labels) == pytest.approx(0.625)


def test_auc_without_any_pair_is_refused() -> None:
    with pytest.raises(ValueError, match="AUC is undefined"):
        pairwise_auc([[0.1, 0.2]], [[1, 1]])


def test_rerank_order_keeps_first_stage_order_on_ties() -> None:
    assert rerank_order(["a", "b", "c", "d"], [0.1, 0.5, 0.5, 0.9]) == ["d", "b", "c", "a"]


def test_document_ranking_keeps_each_document_at_its_first_passage() -> None:
    doc_of = {"d1:0": "d1", "d2:0": "d2", "d1:1": "d1", "d3:0": "d3"}
    assert document_ranking(["d1:1", "d2:0", "d1:0", "d3:0"], doc_of) == ["d1", "d2", "d3"]


def test_pair_order_agreement_counts_pairs_ordered_alike() -> None:
    assert pair_order_agreement([3, 2, 1], [3, 1, 2]) == pytest.approx(2 / 3)
    assert pair_order_agreement([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / 3)  # a tie must stay a tie
    with pytest.raises(ValueError, match="same length"):
        pair_order_agreement([1.0], [1.0])


def test_top_k_overlap() -> None:
    assert top_k_overlap([0.9, 0.8, 0.1, 0.0], [0.1, 0.8, 0.9, 0.0], 2) == 0.5
    assert top_k_overlap([0.9, 0.8], [0.8, 0.9], 10) == 1.0


def test_dev_metrics_rerank_passages_and_score_documents() -> None:
    doc_of = {"d1:0": "d1", "d2:0": "d2", "d1:1": "d1", "d3:0": "d3"}
    candidates = [["d1:0", "d2:0", "d1:1", "d3:0"]]
    grades = [{"d3": 2, "d4": 1}]  # d4 is relevant but not retrieved: it stays in the ideal
    metrics = dev_metrics(candidates, grades, [[0.1, 0.2, 0.3, 0.9]], doc_of)
    ideal = 2 + 1 / math.log2(3)
    assert metrics.ndcg10_first_stage == pytest.approx((2 / math.log2(4)) / ideal)  # d1, d2, d3
    assert metrics.ndcg10_reranked == pytest.approx(2 / ideal)  # d3, d1, d2
    assert metrics.auc == 1.0
    assert (metrics.queries, metrics.depth) == (1, 4)
