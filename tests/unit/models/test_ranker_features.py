"""List features for the learned ranker, against values computed by hand."""

from __future__ import annotations

import math

import pytest

from control_plane.models.ranker_features import FEATURE_NAMES, list_features, local_bm25, tokenize

QUERY = "Aspirin and the heart attack"
DOCUMENTS = ["Aspirin prevents heart attack.", "Statins lower cholesterol"]


def test_tokens_are_lower_cased_words_without_stopwords() -> None:
    assert tokenize(QUERY) == ["aspirin", "heart", "attack"]


def test_local_bm25_takes_frequencies_from_the_list() -> None:
    """n 2, avgdl 3.5; each query term in d1 only: idf ln(1 + 1.5 / 1.5) = ln 2; d1 (4 tokens) norm
    0.9 (0.6 + 0.4 · 4 / 3.5) = 0.9514286, tf 1 / 1.9514286 per term, three terms."""
    scores = local_bm25(tokenize(QUERY), [tokenize(d) for d in DOCUMENTS])
    assert scores == pytest.approx([3 * math.log(2) / 1.9514286, 0.0], rel=1e-6)


def test_rows_follow_the_feature_names() -> None:
    rows = list_features(QUERY, DOCUMENTS, [1.0, 3.0])
    named = [dict(zip(FEATURE_NAMES, row, strict=True)) for row in rows]
    assert named[0] == pytest.approx(
        {
            "position": 1.0,
            "fused_reciprocal_rank": 1 / 61,
            "query_coverage": 1.0,
            "bigram_coverage": 0.5,  # "heart attack" of ("aspirin heart", "heart attack")
            "local_bm25": 3 * math.log(2) / 1.9514286,
            "log_length": math.log(5),
            "query_terms": 3.0,
            "model_score": 1.0,
            "model_rank": 2.0,
            "model_gap_to_best": -2.0,
            "model_z": -1.0,  # mean 2, population standard deviation 1
        },
        rel=1e-6,
    )
    assert named[1]["position"] == 2.0 and named[1]["query_coverage"] == 0.0
    assert (named[1]["model_rank"], named[1]["model_gap_to_best"], named[1]["model_z"]) == (1.0, 0.0, 1.0)


def test_without_model_scores_the_model_columns_are_zero() -> None:
    rows = list_features(QUERY, DOCUMENTS)
    assert all(row[-4:] == (0.0, 0.0, 0.0, 0.0) for row in rows)


def test_model_scores_must_match_the_documents() -> None:
    with pytest.raises(ValueError, match="1 model scores for 2 documents"):
        list_features(QUERY, DOCUMENTS, [0.5])


def test_an_empty_list_has_no_rows() -> None:
    assert list_features(QUERY, []) == [] and local_bm25(["x"], []) == []
