"""Exact retrieval over an index snapshot, with OpenSearch's own scoring and fusion maths, so comparing
its runs with OpenSearch's shows what the index's approximations cost (HNSW, stored precision).

* BM25: Lucene's BM25 over the snapshot's analysed terms: idf = ln(1 + (N - n + 0.5) / (n + 0.5)) with
  the field's docCount and docFreq, tf = freq / (freq + k1 (1 - b + b dl / avgdl)) with dl the field
  length after Lucene's one-byte norm (SmallFloat.intToByte4), in float32 as Lucene computes it; fields
  combined as ``multi_match`` best_fields (max over fields, tie_breaker 0).
* SPLADE: Σ query weight × document weight over shared tokens (``neural_sparse`` on ``rank_features``).
  Lucene's FeatureField keeps the top 17 bits of a float32 (9 significant bits, truncated), so the index
  holds each weight up to 0.39 % low; ``index_precision=True`` applies that truncation, the default
  scores the exact weights.
* Dense: exhaustive inner product (faiss IndexFlatIP), reported on the k-NN scale: 1 + ip for ip ≥ 0,
  1 / (1 - ip) below (Lucene's MAXIMUM_INNER_PRODUCT), which min-max fusion sees.
* Fusion as neural-search 3.6 does it: min-max per sub-query over its candidate list (a score equal to
  the minimum becomes 0.001, a list of equal scores 1.0), weighted arithmetic mean where a missing
  sub-query counts 0 with its weight kept in the denominator; RRF Σ w / (rank_constant + rank), w = 1
  unless weighted.

Equal scores in a component list come in document order, as Lucene orders them (the snapshot keeps
it); fused lists order them by chunk id, which a document run never sees (fused lists are not cut).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import faiss
import numpy as np
import numpy.typing as npt

from control_plane.evaluation.snapshot import FieldStatistics, IndexSnapshot, TermMatrix
from control_plane.formulas.bm25 import bm25_idf
from control_plane.fusion.minmax import weighted_min_max
from control_plane.fusion.rrf import rrf_scores
from control_plane.measures.metrics import Run, rank_documents
from control_plane.query.components import BM25_FIELD_BOOSTS, COMPONENT_ORDER

ChunkScores = dict[str, float]
"""Chunk id -> score, best first (insertion order is the ranking)."""

FloatArray = npt.NDArray[np.float32]
_FREE_VALUES = 24  # SmallFloat: 255 - longToInt4(Integer.MAX_VALUE); shorter lengths are stored exactly
_FEATURE_DROPPED_BITS = 15  # FeatureField: term frequency = floatToIntBits(value) >>> 15


# -- Lucene's encodings -------------------------------------------------------------------------------


def _long_to_int4(value: int) -> int:
    bits = value.bit_length()
    if bits < 4:
        return value
    shift = bits - 4
    return ((value >> shift) & 0x07) | ((shift + 1) << 3)


def _int4_to_long(code: int) -> int:
    shift = (code >> 3) - 1
    return code & 0x07 if shift < 0 else ((code & 0x07) | 0x08) << shift


def int_to_byte4(length: int) -> int:
    """SmallFloat.intToByte4: a field length as the one-byte norm (exact below 24, 4 significant bits
    above)."""
    if length < 0:
        raise ValueError(f"a field length cannot be negative, got {length}")
    return length if length < _FREE_VALUES else _FREE_VALUES + _long_to_int4(length - _FREE_VALUES)


def byte4_to_int(code: int) -> int:
    """SmallFloat.byte4ToInt: the length BM25 reads back from a norm byte (rounded down)."""
    if not 0 <= code <= 255:
        raise ValueError(f"a norm is one unsigned byte, got {code}")
    return code if code < _FREE_VALUES else _FREE_VALUES + _int4_to_long(code - _FREE_VALUES)


def norm_length(length: int) -> int:
    """The field length BM25 actually uses (explain's "dl, length of field (approximate)")."""
    return byte4_to_int(int_to_byte4(length))


def index_feature_values(values: npt.ArrayLike) -> FloatArray:
    """rank_features values as the index holds them: float32 cut to its top 17 bits (sign, exponent and
    8 stored mantissa bits, 9 significant), i.e. truncated towards zero, relative loss < 2**-8."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    kept: FloatArray = ((bits >> _FEATURE_DROPPED_BITS) << _FEATURE_DROPPED_BITS).view(np.float32)
    return kept


def knn_score(inner_product: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """OpenSearch's innerproduct score: 1 + ip for ip ≥ 0, 1 / (1 - ip) below (always positive)."""
    ip = np.asarray(inner_product, dtype=np.float64)
    return np.where(ip >= 0, 1.0 + ip, 1.0 / (1.0 - np.minimum(ip, 0.0)))


# -- BM25 -------------------------------------------------------------------------------------------


def bm25_term_scores(
    weight: float, freqs: npt.ArrayLike, lengths: npt.ArrayLike, avgdl: float, k1: float, b: float
) -> FloatArray:
    """Lucene's BM25Scorer in float32: weight - weight / (1 + freq / (k1 (1 - b + b dl / avgdl))), which
    is weight × tf; ``weight`` = boost × idf, ``lengths`` already decoded from their norm."""
    f32 = np.float32
    norm_inverse = f32(1) / (
        f32(k1) * ((f32(1) - f32(b)) + f32(b) * np.asarray(lengths, dtype=f32) / f32(avgdl))
    )
    w = f32(weight)
    scores: FloatArray = w - w / (f32(1) + np.asarray(freqs, dtype=f32) * norm_inverse)
    return scores


# -- fusion -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FusionParameters:
    """``weights``: min-max fusion's; ``rrf_weights``: weighted RRF's per component (None: classic RRF,
    every component's reciprocal rank counted once)."""

    weights: Mapping[str, float]
    rank_constant: int = 60
    rrf_weights: Mapping[str, float] | None = None


def _fuse_weighted(lists: Mapping[str, ChunkScores], parameters: FusionParameters) -> dict[str, float]:
    names = [name for name in COMPONENT_ORDER if name in lists]
    missing = [name for name in names if name not in parameters.weights]
    if missing:
        raise ValueError(
            f"weighted fusion needs a weight for {missing}; weights given: {dict(parameters.weights)}"
        )
    return weighted_min_max([lists[n] for n in names], [parameters.weights[n] for n in names])


def _fuse_rrf(lists: Mapping[str, ChunkScores], parameters: FusionParameters) -> dict[str, float]:
    names = [name for name in COMPONENT_ORDER if name in lists]
    rankings = [list(lists[name]) for name in names]
    if parameters.rrf_weights is None:
        return rrf_scores(rankings, parameters.rank_constant)
    missing = [name for name in names if name not in parameters.rrf_weights]
    if missing:
        raise ValueError(f"weighted RRF needs a weight for {missing}; given: {dict(parameters.rrf_weights)}")
    return rrf_scores(rankings, parameters.rank_constant, [parameters.rrf_weights[n] for n in names])


FUSIONS: dict[str, Callable[[Mapping[str, ChunkScores], FusionParameters], dict[str, float]]] = {
    "weighted": _fuse_weighted,
    "rrf": _fuse_rrf,
}


def fuse(method: str, lists: Mapping[str, ChunkScores], parameters: FusionParameters) -> ChunkScores:
    """Fused scores of the union of the sub-query lists, best first (equal scores by chunk id)."""
    if method not in FUSIONS:
        raise ValueError(f"unknown fusion method {method!r}; known: {', '.join(FUSIONS)}")
    fused = FUSIONS[method](lists, parameters)
    return {chunk: fused[chunk] for chunk in sorted(fused, key=lambda c: (-fused[c], c))}


# -- exact search -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Postings:
    """Inverted form of a TermMatrix: per term, the chunks (ascending) and their values."""

    ids: Mapping[str, int]
    starts: npt.NDArray[np.int64]
    chunks: npt.NDArray[np.int64]
    values: FloatArray

    @classmethod
    def of(cls, matrix: TermMatrix) -> _Postings:
        rows = np.repeat(np.arange(matrix.rows, dtype=np.int64), np.diff(matrix.indptr))
        order = np.argsort(matrix.term_ids, kind="stable")
        counts = np.bincount(matrix.term_ids, minlength=len(matrix.vocabulary))
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        ids = {term: i for i, term in enumerate(matrix.vocabulary)}
        return cls(ids, starts, rows[order], matrix.values[order])

    def get(self, term: str) -> tuple[npt.NDArray[np.int64], FloatArray] | None:
        i = self.ids.get(term)
        if i is None:
            return None
        span = slice(int(self.starts[i]), int(self.starts[i + 1]))
        return self.chunks[span], self.values[span]


@dataclass(frozen=True)
class _Bm25Field:
    postings: _Postings
    lengths: npt.NDArray[np.int64]  # decoded from the norm, as BM25 reads them
    statistics: FieldStatistics

    @classmethod
    def of(cls, matrix: TermMatrix, statistics: FieldStatistics) -> _Bm25Field:
        rows = np.repeat(np.arange(matrix.rows, dtype=np.int64), np.diff(matrix.indptr))
        raw = np.bincount(rows, weights=matrix.values, minlength=matrix.rows).astype(np.int64)
        table = np.asarray([norm_length(n) for n in range(int(raw.max(initial=0)) + 1)], dtype=np.int64)
        return cls(_Postings.of(matrix), table[raw], statistics)


@dataclass(frozen=True)
class EncodedQuery:
    """One query as every component sees it: its text (for OpenSearch's own BM25 query), the analysed
    terms per BM25 field (from the index's analyzer), SPLADE query weights, the dense query vector."""

    query_id: str
    text: str
    terms: Mapping[str, tuple[str, ...]]
    sparse: Mapping[str, float]
    dense: FloatArray


class ExactIndex:
    """Exhaustive search over a snapshot; every method returns at most ``depth`` chunks, best first."""

    def __init__(self, snapshot: IndexSnapshot) -> None:
        self.chunk_ids = snapshot.chunk_ids
        self.doc_of: dict[str, str] = dict(zip(snapshot.chunk_ids, snapshot.doc_ids, strict=True))
        self._fields = {
            field: _Bm25Field.of(matrix, snapshot.statistics[field])
            for field, matrix in snapshot.terms.items()
        }
        self._sparse = _Postings.of(snapshot.sparse)
        self._sparse_stored = index_feature_values(self._sparse.values)
        self._dense = faiss.IndexFlatIP(snapshot.embeddings.shape[1])
        self._dense.add(np.ascontiguousarray(snapshot.embeddings, dtype=np.float32))

    def bm25(
        self,
        terms: Mapping[str, Sequence[str]],
        depth: int,
        boosts: Mapping[str, float] = BM25_FIELD_BOOSTS,
        similarity: tuple[float, float] | None = None,
    ) -> ChunkScores:
        """``multi_match`` best_fields: per field the sum of its terms' BM25 scores (a repeated query
        term counts again), then the maximum over the fields that match. ``similarity`` (k1, b) replaces
        the index's own, to score a setting the index was not built with (norms do not depend on it)."""
        n = len(self.chunk_ids)
        best = np.zeros(n, dtype=np.float32)
        matched = np.zeros(n, dtype=bool)
        for field, boost in boosts.items():
            index = self._fields.get(field)
            if index is None:
                raise ValueError(
                    f"field {field!r} is not in the snapshot (fields: {', '.join(self._fields)})"
                )
            total = np.zeros(n, dtype=np.float64)
            hit = np.zeros(n, dtype=bool)
            stats = index.statistics
            k1, b = similarity if similarity is not None else (stats.k1, stats.b)
            for term in terms.get(field, ()):
                posting = index.postings.get(term)
                if posting is None:
                    continue
                chunks, freqs = posting
                doc_freq = stats.doc_freq.get(term, len(chunks))
                idf = float(
                    np.float32(bm25_idf(doc_count=stats.doc_count, doc_freq=doc_freq))
                )  # Lucene's float32
                weight = float(np.float32(boost) * np.float32(idf))
                total[chunks] += bm25_term_scores(weight, freqs, index.lengths[chunks], stats.avgdl, k1, b)
                hit[chunks] = True
            field_scores = total.astype(np.float32)
            best = np.where(hit, np.maximum(best, field_scores), best)
            matched |= hit
        return self._top(best, matched, depth)

    def sparse(
        self, tokens: Mapping[str, float], depth: int, *, index_precision: bool = False
    ) -> ChunkScores:
        """Σ query weight × chunk weight over shared tokens; ``index_precision`` uses the weights as
        rank_features stores them (truncated to 9 significant bits)."""
        n = len(self.chunk_ids)
        total = np.zeros(n, dtype=np.float64)
        matched = np.zeros(n, dtype=bool)
        values = self._sparse_stored if index_precision else self._sparse.values
        for token, weight in tokens.items():
            i = self._sparse.ids.get(token)
            if i is None:
                continue
            span = slice(int(self._sparse.starts[i]), int(self._sparse.starts[i + 1]))
            chunks = self._sparse.chunks[span]
            total[chunks] += np.float32(weight) * values[span]
            matched[chunks] = True
        return self._top(total, matched, depth)

    def dense(self, vectors: npt.ArrayLike, depth: int) -> list[ChunkScores]:
        """Per query vector, the ``depth`` highest inner products over every chunk, on the k-NN scale."""
        queries = np.ascontiguousarray(np.atleast_2d(np.asarray(vectors, dtype=np.float32)))
        k = min(depth, len(self.chunk_ids))
        inner, found = self._dense.search(queries, k)
        results: list[ChunkScores] = []
        for row_ip, row_ids in zip(inner, found, strict=True):
            keep = row_ids >= 0
            ids, scores = row_ids[keep], knn_score(row_ip[keep])
            order = np.lexsort((ids, -scores))
            results.append({self.chunk_ids[int(ids[j])]: float(scores[j]) for j in order})
        return results

    def components(
        self, query: EncodedQuery, depth: int, *, index_precision: bool = False
    ) -> dict[str, ChunkScores]:
        """Every component's top ``depth`` chunks for one query."""
        return {
            "bm25": self.bm25(query.terms, depth),
            "splade": self.sparse(query.sparse, depth, index_precision=index_precision),
            "dense": self.dense(query.dense, depth)[0],
        }

    def _top(
        self, scores: npt.NDArray[np.floating], matched: npt.NDArray[np.bool_], depth: int
    ) -> ChunkScores:
        candidates = np.flatnonzero(matched)
        values = scores[candidates].astype(np.float32)
        order = np.lexsort((candidates, -values))[:depth]
        return {self.chunk_ids[int(candidates[j])]: float(values[j]) for j in order}


# -- runs -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Configuration:
    """A retrieval configuration: one component alone, or several fused by ``fusion``."""

    name: str
    components: tuple[str, ...]
    fusion: str | None = None


CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration("bm25", ("bm25",)),
    Configuration("splade", ("splade",)),
    Configuration("dense", ("dense",)),
    Configuration("hybrid-minmax", COMPONENT_ORDER, "weighted"),
    Configuration("hybrid-rrf", COMPONENT_ORDER, "rrf"),
)


def configuration_chunks(
    configuration: Configuration, lists: Mapping[str, ChunkScores], parameters: FusionParameters
) -> ChunkScores:
    """The chunk ranking a configuration produces from its components' candidate lists."""
    if configuration.fusion is None:
        if len(configuration.components) != 1:
            raise ValueError(f"configuration {configuration.name!r} has several components but no fusion")
        return dict(lists[configuration.components[0]])
    return fuse(configuration.fusion, {c: lists[c] for c in configuration.components}, parameters)


def to_documents(chunks: Mapping[str, float], doc_of: Mapping[str, str], depth: int) -> dict[str, float]:
    """Chunk scores collapsed to documents by their best chunk (BEIR judges documents), top ``depth``
    in the order the metrics rank them."""
    best: dict[str, float] = {}
    for chunk, score in chunks.items():
        try:
            doc = doc_of[chunk]
        except KeyError:
            raise ValueError(f"chunk {chunk!r} is not in the snapshot: take a fresh snapshot") from None
        if doc not in best or score > best[doc]:
            best[doc] = score
    return {doc: best[doc] for doc in rank_documents(best)[:depth]}


def runs_from_components(
    components: Mapping[str, Mapping[str, ChunkScores]],
    doc_of: Mapping[str, str],
    parameters: FusionParameters,
    depth: int,
    configurations: Iterable[Configuration] = CONFIGURATIONS,
) -> dict[str, Run]:
    """Configuration name -> document run, from each query's component candidate lists."""
    return {
        configuration.name: {
            query_id: to_documents(configuration_chunks(configuration, lists, parameters), doc_of, depth)
            for query_id, lists in components.items()
        }
        for configuration in configurations
    }


def exact_components(
    index: ExactIndex, queries: Iterable[EncodedQuery], candidate_depth: int, *, index_precision: bool = False
) -> dict[str, dict[str, ChunkScores]]:
    """Query id -> component -> exact top ``candidate_depth`` chunks."""
    return {
        q.query_id: index.components(q, candidate_depth, index_precision=index_precision) for q in queries
    }
