"""Exact sparse scoring over CSR rows: the dot products rank_features computes, checked by hand and
against dense arithmetic, across score blocks and with empty rows."""

from __future__ import annotations

import numpy as np
import pytest

from model_artifacts.sparse_tuning import vectors
from model_artifacts.sparse_tuning.vectors import SparseRows, cut_rows, dot_scores, stack


def _rows(matrix: list[list[float]]) -> SparseRows:
    array = np.array(matrix, dtype=np.float32)
    return cut_rows(array, np.ones(array.shape[1], dtype=bool), top_k=array.shape[1], min_weight=1e-9)


def test_dot_scores_by_hand() -> None:
    queries = _rows([[1.0, 0.0, 2.0], [0.0, 0.5, 0.0]])
    passages = _rows([[3.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 4.0, 1.0]])
    # q1·p1 = 3, q1·p2 = 0 (an empty passage), q1·p3 = 1 + 2 = 3; q2·p1 = 0.5, q2·p3 = 2
    np.testing.assert_allclose(dot_scores(queries, passages), [[3.0, 0.0, 3.0], [0.5, 0.0, 2.0]])


def test_blocks_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    q = np.where(rng.random((4, 50)) < 0.2, rng.random((4, 50)), 0).astype(np.float32)
    p = np.where(rng.random((30, 50)) < 0.2, rng.random((30, 50)), 0).astype(np.float32)
    p[7] = 0  # an empty row inside a block
    expected = q @ p.T
    monkeypatch.setattr(vectors, "SCORE_BLOCK", 5)
    np.testing.assert_allclose(dot_scores(_rows(q.tolist()), _rows(p.tolist())), expected, rtol=1e-5)


def test_stack_take_and_dense_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a, b = _rows([[1.0, 0.0], [0.0, 2.0]]), _rows([[0.0, 0.0], [3.0, 4.0]])
    both = stack([a, b])
    np.testing.assert_array_equal(both.dense(), [[1, 0], [0, 2], [0, 0], [3, 4]])
    np.testing.assert_array_equal(both.take([3, 0]).dense(), [[3, 4], [1, 0]])
    both.save(tmp_path / "v.npz")
    np.testing.assert_array_equal(SparseRows.load(tmp_path / "v.npz").dense(), both.dense())


def test_vocabularies_must_agree() -> None:
    with pytest.raises(ValueError, match="vocabularies differ"):
        dot_scores(_rows([[1.0]]), _rows([[1.0, 2.0]]))
