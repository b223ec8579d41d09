"""The in-process BM25 that mines SciFact and MEDLINE negatives: hand-computed Lucene scores."""

from __future__ import annotations

import math

import pytest

from control_plane.models.ranker_features import tokenize
from model_artifacts.reranker.bm25 import Bm25

# lengths 3, 2, 1 (avgdl 2); k1 = 0.9, b = 0.4
TEXTS = ["Aspirin bleeding risk", "aspirin dose", "statin"]


def test_tokens_are_lower_case_alphanumeric_runs_without_stopwords() -> None:
    assert tokenize("The IL-8 response of the cells, and TNF") == ["il", "8", "response", "cells", "tnf"]


def test_idf_follows_lucene() -> None:
    index = Bm25(TEXTS)
    assert index.idf("aspirin") == pytest.approx(math.log(1 + 1.5 / 2.5))  # df 2 of 3
    assert index.idf("bleeding") == pytest.approx(math.log(1 + 2.5 / 1.5))  # df 1
    assert index.idf("absent") == pytest.approx(math.log(1 + 3.5 / 0.5))


def test_scores_match_the_hand_computed_values() -> None:
    index = Bm25(TEXTS)
    idf_aspirin, idf_bleeding = math.log(1.6), math.log(1 + 2.5 / 1.5)
    # tf = 1: score = idf / (1 + k1 (1 − b + b dl / avgdl)); doc 0: 0.9 × 1.2 = 1.08, doc 1: 0.9 × 1.0
    expected = [idf_aspirin / 2.08 + idf_bleeding / 2.08, idf_aspirin / 1.9, 0.0]
    assert index.scores("aspirin bleeding").tolist() == pytest.approx(expected)


def test_top_is_best_first_drops_zero_scores_and_honours_exclusions() -> None:
    index = Bm25(TEXTS)
    assert index.top("aspirin", 3) == [1, 0]  # the shorter text wins; "statin" has no match
    assert index.top("aspirin bleeding", 3) == [0, 1]
    assert index.top("aspirin", 3, exclude={1}) == [0]
    assert index.top("the", 3) == []  # a stopword matches nothing


def test_equal_scores_are_ordered_by_index() -> None:
    assert Bm25(["kinase inhibitor", "inhibitor kinase", "other"]).top("kinase", 5) == [0, 1]


def test_an_empty_corpus_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one text"):
        Bm25([])
