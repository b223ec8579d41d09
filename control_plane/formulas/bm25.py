"""Lucene's BM25 inverse document frequency, the one definition used by the exact reference search
and by the doc-only sparse model's IDF table. Keyword-only arguments: the two counts are easy to swap."""

from __future__ import annotations

import math


def bm25_idf(*, doc_count: int, doc_freq: int) -> float:
    """ln(1 + (N - n + 0.5) / (n + 0.5)) for N documents of which n hold the term: positive for every
    n <= N (float64; Lucene computes it in float32, which the exact reference rounds to)."""
    return math.log(1.0 + (doc_count - doc_freq + 0.5) / (doc_freq + 0.5))
