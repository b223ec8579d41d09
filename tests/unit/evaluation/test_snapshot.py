"""Snapshot containers: CSR rows, Lucene's avgdl, and the npz cache round trip (no pickle)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from control_plane.evaluation.snapshot import (
    FieldStatistics,
    IndexSnapshot,
    TermMatrix,
    load_snapshot,
    save_snapshot,
)


def test_term_matrix_rows_share_one_vocabulary() -> None:
    matrix = TermMatrix.from_rows([{"a": 2.0, "b": 1.0}, {}, {"b": 0.5, "c": 3.0}])
    assert matrix.vocabulary == ("a", "b", "c")
    assert matrix.indptr.tolist() == [0, 2, 2, 4]
    assert matrix.term_ids.tolist() == [0, 1, 1, 2]
    assert matrix.rows == 3
    assert [matrix.row(i) for i in range(3)] == [{"a": 2.0, "b": 1.0}, {}, {"b": 0.5, "c": 3.0}]


def test_avgdl_is_lucene_float() -> None:
    # 601927 / 6794 = 88.596850...; Lucene keeps it as a float: 88.59685 (explain shows the same)
    stats = FieldStatistics(k1=1.2, b=0.75, doc_count=6794, sum_total_term_freq=601927, doc_freq={})
    assert stats.avgdl == float(np.float32(88.59685))
    assert FieldStatistics(1.2, 0.75, 0, 0, {}).avgdl == 1.0


def _snapshot() -> IndexSnapshot:
    return IndexSnapshot(
        index="idx",
        key="uuid-2-7",
        chunk_ids=("d1:chunk:0", "d2:chunk:0"),
        doc_ids=("d1", "d2"),
        embeddings=np.asarray([[0.6, 0.8], [1.0, 0.0]], dtype=np.float32),
        sparse=TermMatrix.from_rows([{"##s": 0.25}, {"x": 1.5, "##s": 2.0}]),
        terms={"text": TermMatrix.from_rows([{"alpha": 2.0}, {"beta": 1.0, "alpha": 1.0}])},
        statistics={"text": FieldStatistics(1.2, 0.75, 2, 4, {"alpha": 2, "beta": 1})},
    )


def test_save_and_load_give_back_the_same_snapshot(tmp_path: Path) -> None:
    original = _snapshot()
    path = tmp_path / "snap.npz"
    save_snapshot(original, path)
    loaded = load_snapshot(path)
    assert (loaded.index, loaded.key, loaded.chunk_ids, loaded.doc_ids) == (
        original.index,
        original.key,
        original.chunk_ids,
        original.doc_ids,
    )
    np.testing.assert_array_equal(loaded.embeddings, original.embeddings)
    assert [loaded.sparse.row(i) for i in range(2)] == [original.sparse.row(i) for i in range(2)]
    assert [loaded.terms["text"].row(i) for i in range(2)] == [{"alpha": 2.0}, {"beta": 1.0, "alpha": 1.0}]
    assert loaded.statistics == original.statistics
    assert list(tmp_path.iterdir()) == [path]  # written through a temporary file, then renamed


def test_row_counts_must_agree() -> None:
    with pytest.raises(ValueError, match="2 chunk ids but row counts"):
        IndexSnapshot(
            index="idx",
            key="k",
            chunk_ids=("a", "b"),
            doc_ids=("a",),
            embeddings=np.zeros((2, 2), dtype=np.float32),
            sparse=TermMatrix.from_rows([{}, {}]),
            terms={},
            statistics={},
        )
