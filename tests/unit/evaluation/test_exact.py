"""Exact reference maths against hand-computed values (and values read off OpenSearch's explain)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from control_plane.evaluation.exact import (
    CONFIGURATIONS,
    EncodedQuery,
    ExactIndex,
    FusionParameters,
    bm25_term_scores,
    byte4_to_int,
    fuse,
    index_feature_values,
    int_to_byte4,
    knn_score,
    norm_length,
    runs_from_components,
    to_documents,
)
from control_plane.evaluation.snapshot import FieldStatistics, IndexSnapshot, TermMatrix
from control_plane.formulas.bm25 import bm25_idf

WEIGHTS = FusionParameters(weights={"bm25": 0.30, "splade": 0.35, "dense": 0.35}, rank_constant=60)


# -- Lucene encodings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "stored"),
    [(0, 0), (1, 1), (23, 23), (24, 24), (39, 39), (40, 40), (41, 40), (113, 112)],
)
def test_norm_length_is_exact_below_40_then_rounded_down(length: int, stored: int) -> None:
    # 41 - 24 = 17 = 0b10001 keeps its top 4 bits 0b1000 << 1 = 16, so 24 + 16 = 40; OpenSearch's explain
    # shows "dl, length of field (approximate)" 112.0 for a 113-token text field.
    assert norm_length(length) == stored


def test_norm_byte_round_trip_and_range() -> None:
    assert int_to_byte4(113) == 24 + 35  # 89 = 0b1011001: mantissa 0b011, exponent 3 + 1 -> 0b100011
    assert byte4_to_int(59) == 112  # 24 + (0b1011 << 3)
    assert byte4_to_int(255) == 24 + (0b1111 << 27)  # 231 = exponent 28, mantissa 0b111: the largest
    with pytest.raises(ValueError, match="negative"):
        int_to_byte4(-1)
    with pytest.raises(ValueError, match="one unsigned byte"):
        byte4_to_int(256)


def test_bm25_matches_opensearch_explain() -> None:
    # explain of "vitamin" in MED-4574:chunk:0's text: n=306, N=6794 -> idf 3.0987246; freq 7,
    # dl 112 (approximate), avgdl 88.59685, k1 1.2, b 0.75 -> tf 0.82960624; score 2.5707211.
    idf = bm25_idf(doc_count=6794, doc_freq=306)
    assert idf == pytest.approx(3.0987246, abs=1e-6)
    score = bm25_term_scores(idf, [7.0], [112], 88.59685, 1.2, 0.75)
    assert score[0] == pytest.approx(2.5707211, abs=1e-6)
    assert score.dtype == np.float32


def test_feature_values_keep_nine_significant_bits_truncated() -> None:
    # 0.3 = 1.2 × 2^-2; 0.2 × 256 = 51.2 -> 51 kept: (1 + 51/256) / 4 = 0.2998046875.
    # 0.1 = 1.6 × 2^-4; 0.6 × 256 = 153.6 -> 153: (1 + 153/256) / 16 = 0.099853515625.
    stored = index_feature_values([0.3, 0.1, 1.0, 2.5])
    assert stored.tolist() == [0.2998046875, 0.099853515625, 1.0, 2.5]


def test_knn_score_is_opensearch_innerproduct_scale() -> None:
    assert knn_score([0.5, 0.0, -1.0, -0.25]).tolist() == [1.5, 1.0, 0.5, 0.8]


# -- fusion -----------------------------------------------------------------------------------------


LISTS = {
    "bm25": {"d1": 4.0, "d2": 3.0, "d3": 2.0},
    "splade": {"d2": 3.0, "d1": 2.0, "d4": 1.0},
    "dense": {"d1": 2.0, "d4": 1.8, "d2": 1.6},
}


def test_weighted_min_max_by_hand() -> None:
    # normalised: bm25 d1 1, d2 0.5, d3 0.001; splade d2 1, d1 0.5, d4 0.001; dense d1 1, d4 0.5, d2 0.001
    # d1 = .3·1 + .35·.5 + .35·1 = 0.825      d2 = .3·.5 + .35·1 + .35·.001 = 0.50035
    # d3 = .3·.001 = 0.0003 (missing elsewhere: 0, weights still count)   d4 = .35·.001 + .35·.5 = 0.17535
    fused = fuse("weighted", LISTS, WEIGHTS)
    assert list(fused) == ["d1", "d2", "d4", "d3"]
    assert fused == pytest.approx({"d1": 0.825, "d2": 0.50035, "d4": 0.17535, "d3": 0.0003})


def test_rrf_by_hand() -> None:
    fused = fuse("rrf", LISTS, WEIGHTS)
    assert fused == pytest.approx(
        {
            "d1": 1 / 61 + 1 / 62 + 1 / 61,
            "d2": 1 / 62 + 1 / 61 + 1 / 63,
            "d3": 1 / 63,
            "d4": 1 / 63 + 1 / 62,
        }
    )
    assert list(fused) == ["d1", "d2", "d4", "d3"]


def test_unknown_fusion_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fusion method 'sum'"):
        fuse("sum", LISTS, WEIGHTS)


def test_to_documents_keeps_each_documents_best_chunk() -> None:
    doc_of = {"A:0": "A", "A:1": "A", "B:0": "B"}
    assert to_documents({"B:0": 0.9, "A:1": 0.7, "A:0": 0.5}, doc_of, 10) == {"B": 0.9, "A": 0.7}
    assert to_documents({"A:0": 0.95, "B:0": 0.9, "A:1": 0.7}, doc_of, 1) == {"A": 0.95}
    with pytest.raises(ValueError, match="'C:0' is not in the snapshot"):
        to_documents({"C:0": 1.0}, doc_of, 10)


# -- exact search over a hand-built snapshot ----------------------------------------------------------


def _snapshot() -> IndexSnapshot:
    """c0 text "alpha alpha beta", c1 text "alpha" and title "beta", c2 text "gamma" ×4."""
    empty = TermMatrix.from_rows([{}, {}, {}])
    no_field = FieldStatistics(k1=1.2, b=0.75, doc_count=0, sum_total_term_freq=0, doc_freq={})
    return IndexSnapshot(
        index="hand",
        key="k",
        chunk_ids=("c0", "c1", "c2"),
        doc_ids=("D0", "D1", "D1"),
        embeddings=np.asarray([[1.0, 0.0], [0.6, 0.8], [-1.0, 0.0]], dtype=np.float32),
        sparse=TermMatrix.from_rows([{"x": 0.3, "y": 1.0}, {"x": 1.0}, {"z": 2.0}]),
        terms={
            "text": TermMatrix.from_rows([{"alpha": 2, "beta": 1}, {"alpha": 1}, {"gamma": 4}]),
            "title_path": TermMatrix.from_rows([{}, {"beta": 1}, {}]),
            "facet_json": empty,
            "table_lines": empty,
            "identifiers": empty,
            "topics": empty,
        },
        statistics={
            "text": FieldStatistics(1.2, 0.75, 3, 8, {"alpha": 2, "beta": 1, "gamma": 1}),
            "title_path": FieldStatistics(1.2, 0.75, 1, 1, {"beta": 1}),
            "facet_json": no_field,
            "table_lines": no_field,
            "identifiers": no_field,
            "topics": no_field,
        },
    )


def _terms(*terms: str) -> dict[str, tuple[str, ...]]:
    return dict.fromkeys(("text", "title_path", "facet_json", "table_lines", "identifiers", "topics"), terms)


# text avgdl 8/3. alpha: idf ln(1 + 1.5/2.5) = 0.4700036; beta (text): idf ln(1 + 2.5/1.5) = 0.9808293.
# c0 (dl 3): tf(alpha, 2) = 2 / (2 + 1.2 (0.25 + 0.75·3/(8/3))) = 0.6037736; tf(beta, 1) = 0.4324324.
# c1 (dl 1): tf(alpha, 1) = 1 / (1 + 1.2 (0.25 + 0.75·1/(8/3))) = 0.6106870.
# c1 title (avgdl 1, dl 1): beta idf ln(1 + 0.5/1.5) = 0.2876821, tf 1/2.2, boost 1.4 -> 0.1830704.
C0_ALPHA, C0_BETA, C1_ALPHA, C1_TITLE_BETA = 0.2837758, 0.4241424, 0.2870251, 0.1830704


def test_bm25_sums_terms_within_a_field_and_takes_the_best_field() -> None:
    index = ExactIndex(_snapshot())
    scores = index.bm25(_terms("alpha", "beta"), depth=10)
    assert list(scores) == ["c0", "c1"]  # c2 matches nothing
    # c1: text alpha 0.2870 beats title beta 0.1831 (best_fields, tie_breaker 0: no sum across fields)
    assert scores == pytest.approx({"c0": C0_ALPHA + C0_BETA, "c1": C1_ALPHA}, rel=1e-6)


def test_bm25_title_boost_and_repeated_terms() -> None:
    index = ExactIndex(_snapshot())
    assert index.bm25(_terms("beta"), depth=10) == pytest.approx(
        {"c0": C0_BETA, "c1": C1_TITLE_BETA}, rel=1e-6
    )
    assert index.bm25(_terms("alpha", "alpha"), depth=1) == pytest.approx({"c1": 2 * C1_ALPHA}, rel=1e-6)
    assert index.bm25(_terms("the"), depth=10) == {}


def test_bm25_with_another_similarity_rescores_from_the_same_norms() -> None:
    """k1 0.9, b 0.4 on "alpha": c0 (dl 3, freq 2) 2 / (2 + 0.9 (0.6 + 0.4·3/(8/3))) = 0.6791171 and c1
    (dl 1) 1 / (1 + 0.9 (0.6 + 0.4·1/(8/3))) = 0.5970149, times idf 0.4700036: the order flips from the
    index's 1.2 / 0.75 (c1 0.2870 above c0 0.2838)."""
    index = ExactIndex(_snapshot())
    assert list(index.bm25(_terms("alpha"), depth=10)) == ["c1", "c0"]
    scores = index.bm25(_terms("alpha"), depth=10, similarity=(0.9, 0.4))
    assert list(scores) == ["c0", "c1"]
    assert scores == pytest.approx({"c0": 0.3191875, "c1": 0.2805992}, rel=1e-6)


def test_sparse_dot_product_exact_and_at_stored_precision() -> None:
    index = ExactIndex(_snapshot())
    query = {"x": 2.0, "y": 0.5, "unseen": 9.0}
    assert index.sparse(query, depth=10) == pytest.approx({"c1": 2.0, "c0": 2 * 0.3 + 0.5})
    # stored x of c0 is 0.2998046875: 2 × 0.2998046875 + 0.5 = 1.099609375
    assert index.sparse(query, depth=10, index_precision=True) == pytest.approx(
        {"c1": 2.0, "c0": 1.099609375}, rel=1e-7
    )


def test_dense_is_exhaustive_on_the_knn_scale() -> None:
    index = ExactIndex(_snapshot())
    [scores] = index.dense([1.0, 0.0], depth=3)
    assert list(scores) == ["c0", "c1", "c2"]
    assert scores == pytest.approx({"c0": 2.0, "c1": 1.6, "c2": 0.5})


def test_equal_scores_come_in_document_order() -> None:
    twins = np.asarray([[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]], dtype=np.float32)
    tied = ExactIndex(replace(_snapshot(), embeddings=twins))
    assert list(tied.dense([1.0, 0.0], depth=2)[0]) == ["c1", "c2"]
    assert list(tied.dense([1.0, 0.0], depth=1)[0]) == ["c1"]


def test_runs_collapse_each_configuration_to_documents() -> None:
    index = ExactIndex(_snapshot())
    vector = np.asarray([1.0, 0.0], dtype=np.float32)
    query = EncodedQuery("q1", "alpha", _terms("alpha"), {"z": 1.0, "x": 1.0}, vector)
    runs = runs_from_components({"q1": index.components(query, depth=10)}, index.doc_of, WEIGHTS, depth=10)
    assert set(runs) == {c.name for c in CONFIGURATIONS}
    # bm25: c1 (D1) 0.2870 > c0 (D0) 0.2838 (one "alpha" in a 1-term text beats two in a 3-term one)
    assert list(runs["bm25"]["q1"]) == ["D1", "D0"]
    assert runs["bm25"]["q1"] == pytest.approx({"D1": C1_ALPHA, "D0": C0_ALPHA}, rel=1e-6)
    # splade: c2 2.0, c1 1.0 (both D1), c0 0.3 (D0); dense: c0 2.0 (D0), c1 1.6, c2 0.5 (D1)
    assert runs["splade"]["q1"] == pytest.approx({"D1": 2.0, "D0": 0.3})
    assert runs["dense"]["q1"] == pytest.approx({"D0": 2.0, "D1": 1.6})
    # min-max: bm25 c1 1, c0 .001; splade c2 1, c1 .7/1.7, c0 .001; dense c0 1, c1 1.1/1.5, c2 .001
    # c0 = .3·.001 + .35·.001 + .35 = 0.35065; c1 = .3 + .35·.7/1.7 + .35·1.1/1.5 = 0.7007843;
    # c2 = .35 + .35·.001 = 0.35035; D1 keeps c1.
    assert runs["hybrid-minmax"]["q1"] == pytest.approx({"D1": 0.7007843, "D0": 0.35065}, rel=1e-6)
    # rrf: c0 ranks (2, 3, 1), c1 (1, 2, 2), c2 (-, 1, 3): c1 = 1/61 + 2/62 beats c2 and c0
    assert runs["hybrid-rrf"]["q1"] == pytest.approx({"D1": 1 / 61 + 2 / 62, "D0": 1 / 62 + 1 / 63 + 1 / 61})
