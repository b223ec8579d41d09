"""Query–document similarity as the cosine of bi-encoder embeddings.

This is an honest stand-in for a reranker: the same dense model scores query and document separately
and compares them. It is not a cross-encoder (none can be had offline), and it is named so that nobody
mistakes its scores for one's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt


class TextEncoder(Protocol):
    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def cosine_scores(query: npt.NDArray[np.float32], documents: npt.NDArray[np.float32]) -> list[float]:
    """Cosine of one query vector against each document row (norms recomputed, so any encoder works)."""
    q = query / max(float(np.linalg.norm(query)), 1e-12)
    norms = np.maximum(np.linalg.norm(documents, axis=1), 1e-12)
    return [float(s) for s in (documents @ q) / norms]


class SimilarityScorer:
    """Scores documents against a query with a dense encoder's cosine (mpnet or minilm)."""

    def __init__(self, encoder: TextEncoder, name: str) -> None:
        self._encoder = encoder
        self.name = name

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        if not documents:
            return []
        vectors = self._encoder.encode([query, *documents])
        return cosine_scores(vectors[0], vectors[1:])
