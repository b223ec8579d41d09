"""Sparse vectors as CSR rows in numpy, cut as the index stores them, and their exact dot products.

Evaluation needs only three things from a sparse matrix (build rows, stack them, score queries against
passages), so they are written here over numpy arrays rather than taking a new dependency.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

SCORE_BLOCK = 50_000
"""Passage entries scored at once: bounds the [queries, entries] float64 running sums (324 queries:
130 MB)."""


@dataclass(frozen=True)
class SparseRows:
    """Row i holds ``ids/values[indptr[i]:indptr[i+1]]`` over a vocabulary of ``width`` entries."""

    indptr: npt.NDArray[np.int64]
    ids: npt.NDArray[np.int32]
    values: npt.NDArray[np.float32]
    width: int

    @property
    def rows(self) -> int:
        return len(self.indptr) - 1

    @property
    def entries(self) -> int:
        return len(self.ids)

    def dense(self) -> npt.NDArray[np.float32]:
        out = np.zeros((self.rows, self.width), dtype=np.float32)
        out[np.repeat(np.arange(self.rows), np.diff(self.indptr)), self.ids] = self.values
        return out

    def take(self, order: Sequence[int] | npt.NDArray[np.int64]) -> SparseRows:
        """The rows in ``order`` (a permutation or selection)."""
        spans = [slice(int(self.indptr[i]), int(self.indptr[i + 1])) for i in order]
        lengths = np.array([s.stop - s.start for s in spans], dtype=np.int64)
        return SparseRows(
            indptr=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            ids=np.concatenate([self.ids[s] for s in spans] or [np.zeros(0, np.int32)]).astype(np.int32),
            values=np.concatenate([self.values[s] for s in spans] or [np.zeros(0, np.float32)]).astype(
                np.float32
            ),
            width=self.width,
        )

    def save(self, path: Path) -> None:
        np.savez_compressed(path, indptr=self.indptr, ids=self.ids, values=self.values, width=self.width)

    @classmethod
    def load(cls, path: Path) -> SparseRows:
        data = np.load(path)
        return cls(data["indptr"], data["ids"], data["values"], int(data["width"]))


def stack(parts: Sequence[SparseRows]) -> SparseRows:
    if not parts:
        raise ValueError("nothing to stack")
    offsets = np.cumsum([0] + [p.entries for p in parts[:-1]])
    return SparseRows(
        indptr=np.concatenate([[0]] + [p.indptr[1:] + o for p, o in zip(parts, offsets, strict=True)]),
        ids=np.concatenate([p.ids for p in parts]),
        values=np.concatenate([p.values for p in parts]),
        width=parts[0].width,
    )


def cut_rows(
    weights: npt.NDArray[np.float32], keep: npt.NDArray[np.bool_], *, top_k: int, min_weight: float
) -> SparseRows:
    """Each row cut as ``control_plane.models.sparse.top_terms`` cuts a vector for the index: allowed
    entries ≥ ``min_weight``, the ``top_k`` heaviest (ties by token id)."""
    allowed = keep[: weights.shape[1]]
    ids, values, lengths = [], [], []
    for vector in weights:
        candidates = np.flatnonzero(allowed & (vector >= min_weight))
        chosen = candidates[np.lexsort((candidates, -vector[candidates]))[:top_k]]
        ids.append(chosen.astype(np.int32))
        values.append(vector[chosen].astype(np.float32))
        lengths.append(chosen.size)
    return SparseRows(
        indptr=np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64),
        ids=np.concatenate(ids or [np.zeros(0, np.int32)]),
        values=np.concatenate(values or [np.zeros(0, np.float32)]),
        width=weights.shape[1],
    )


def dot_scores(queries: SparseRows, passages: SparseRows) -> npt.NDArray[np.float32]:
    """[queries, passages] dot products, as rank_features sums a query's weights × a chunk's."""
    if queries.width != passages.width:
        raise ValueError(f"vocabularies differ: {queries.width} vs {passages.width}")
    dense = queries.dense()
    out = np.zeros((queries.rows, passages.rows), dtype=np.float32)
    start = 0
    while start < passages.rows:
        stop = int(np.searchsorted(passages.indptr, passages.indptr[start] + SCORE_BLOCK, side="right")) - 1
        stop = min(max(stop, start + 1), passages.rows)
        low, high = int(passages.indptr[start]), int(passages.indptr[stop])
        products = dense[:, passages.ids[low:high]] * passages.values[low:high]
        # Row sums as differences of one running sum (empty rows give 0); float64 keeps them exact enough.
        running = np.zeros((queries.rows, high - low + 1), dtype=np.float64)
        np.cumsum(products, axis=1, dtype=np.float64, out=running[:, 1:])
        bounds = passages.indptr[start : stop + 1] - low
        out[:, start:stop] = running[:, bounds[1:]] - running[:, bounds[:-1]]
        start = stop
    return out
