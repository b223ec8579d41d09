"""A small in-process BM25 for mining negatives in corpora that have no OpenSearch index (SciFact, MEDLINE).

Lucene's formula (k1 = 0.9, b = 0.4, the Anserini defaults): idf = ln(1 + (N − df + 0.5) / (df + 0.5)),
term score = idf · tf / (tf + k1 · (1 − b + b · dl / avgdl)), summed over the query's distinct terms.
Terms are lower-cased alphanumeric runs minus a short stopword list, no stemming (the learned
ranker's tokenizer, control_plane/models/ranker_features.py). It only has to rank
plausible confusers above random passages, not to match the production analyser.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Collection, Sequence

import numpy as np
import numpy.typing as npt

from control_plane.formulas.bm25 import bm25_idf
from control_plane.models.ranker_features import tokenize


class Bm25:
    def __init__(self, texts: Sequence[str], k1: float = 0.9, b: float = 0.4) -> None:
        if not texts:
            raise ValueError("BM25 needs at least one text")
        docs: dict[str, array[int]] = {}
        tfs: dict[str, array[int]] = {}
        lengths = np.zeros(len(texts), dtype=np.float64)
        for index, text in enumerate(texts):
            tokens = tokenize(text)
            lengths[index] = len(tokens)
            for term, tf in Counter(tokens).items():
                docs.setdefault(term, array("i")).append(index)
                tfs.setdefault(term, array("i")).append(tf)
        self._docs = docs
        self._tfs = tfs
        self.size = len(texts)
        avgdl = float(lengths.mean()) or 1.0
        self._norm = k1 * (1 - b + b * lengths / avgdl)  # per-document length normalisation
        self.k1 = k1
        self.b = b

    def idf(self, term: str) -> float:
        df = len(self._docs.get(term, ()))
        return bm25_idf(doc_count=self.size, doc_freq=df)

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """The BM25 score of every text for ``query`` (0 where no term matches)."""
        out = np.zeros(self.size, dtype=np.float64)
        for term in sorted(set(tokenize(query))):
            if term not in self._docs:
                continue
            docs = np.frombuffer(self._docs[term], dtype=np.int32)
            tf = np.frombuffer(self._tfs[term], dtype=np.int32).astype(np.float64)
            out[docs] += self.idf(term) * tf / (tf + self._norm[docs])
        return out

    def top(self, query: str, k: int, exclude: Collection[int] = ()) -> list[int]:
        """Indices of the ``k`` best-scoring texts with a score > 0, best first, ties by index."""
        scores = self.scores(query)
        if exclude:
            scores[list(exclude)] = 0.0
        candidates = np.flatnonzero(scores > 0)
        order = np.lexsort((candidates, -scores[candidates]))[:k]
        return [int(i) for i in candidates[order]]
