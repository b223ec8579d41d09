"""Sentence vectors from token states, for graphs that return ``last_hidden_state`` (BGE from Maven).

The project's own exports pool inside the graph; a model taken as published (its bytes pinned by sha256)
is pooled here instead, so its file stays the one that was pinned.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
POOLINGS: tuple[str, ...] = ("cls", "mean")


def cls_pool(hidden: FloatArray) -> FloatArray:
    """The first token's state ([CLS]) of each row: ``(batch, tokens, dim)`` → ``(batch, dim)``."""
    return np.ascontiguousarray(hidden[:, 0, :], dtype=np.float32)


def mean_pool(hidden: FloatArray, attention_mask: IntArray) -> FloatArray:
    """The mean of the unmasked token states of each row (padding excluded)."""
    weights = attention_mask.astype(np.float32)[:, :, None]
    counts = np.maximum(weights.sum(axis=1), 1e-9)
    return np.asarray((hidden * weights).sum(axis=1) / counts, dtype=np.float32)


def l2_normalize(vectors: FloatArray) -> FloatArray:
    """Each row scaled to unit length (a zero row stays zero), so inner product equals cosine."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


def pool(hidden: FloatArray, attention_mask: IntArray, method: str, *, normalize: bool) -> FloatArray:
    """Pool token states with ``method`` ("cls" or "mean"), then L2-normalise when asked."""
    if method == "cls":
        pooled = cls_pool(hidden)
    elif method == "mean":
        pooled = mean_pool(hidden, attention_mask)
    else:
        raise ValueError(f"unknown pooling {method!r} (known: {', '.join(POOLINGS)})")
    return l2_normalize(pooled) if normalize else pooled
