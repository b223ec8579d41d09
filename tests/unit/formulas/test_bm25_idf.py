"""Lucene's BM25 IDF by hand (moved from the doc-only model's and the exact reference's tests)."""

from __future__ import annotations

import math

import pytest

from control_plane.formulas.bm25 import bm25_idf


def idf(df: int, n: int) -> float:
    return bm25_idf(doc_count=n, doc_freq=df)


def test_bm25_idf_hand_values() -> None:
    # N = 10, df = 1: log(1 + 9.5 / 1.5) = log(7.3333) = 1.99243
    assert idf(1, 10) == pytest.approx(math.log(1 + 9.5 / 1.5))
    assert idf(1, 10) == pytest.approx(1.99243, abs=1e-5)
    # df = N: log(1 + 0.5 / 10.5) = 0.04652, still positive (rank_features need > 0)
    assert idf(10, 10) == pytest.approx(0.04652, abs=1e-5)
    assert idf(0, 10) > idf(1, 10) > idf(5, 10) > idf(10, 10) > 0


def test_the_arguments_are_named_so_they_cannot_be_swapped() -> None:
    with pytest.raises(TypeError):
        bm25_idf(10, 1)  # type: ignore[misc]
