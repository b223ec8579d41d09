"""Features of one first-stage candidate list, for a learned ranker served behind the rerank connector.

OpenSearch's rerank processor sends only the query text and each candidate's text, best first, so every
feature is computed from those (and, optionally, the cross-encoder's scores of them): the candidate's
fused position, the model's score and rank within the list, and lexical matches weighted by document
frequencies within the list itself (the service holds no corpus statistics). Pure functions: the
benchmark that trains the ranker and the service that applies it compute the same numbers.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence

from control_plane.formulas.bm25 import bm25_idf
from control_plane.fusion.rerank_blend import model_ranks
from control_plane.fusion.rrf import DEFAULT_RANK_CONSTANT

_TOKEN = re.compile(r"[a-z0-9]+")
_STOPWORD_TEXT = (
    "a an and are as at be by for from has have in is it its of on or that the this to was were which with "
    "we our not no but can may than these those their there been into also"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
LOCAL_K1, LOCAL_B = 0.9, 0.4

LEXICAL_FEATURES: tuple[str, ...] = (
    "position",
    "fused_reciprocal_rank",
    "query_coverage",
    "bigram_coverage",
    "local_bm25",
    "log_length",
    "query_terms",
)
MODEL_FEATURES: tuple[str, ...] = ("model_score", "model_rank", "model_gap_to_best", "model_z")
FEATURE_NAMES: tuple[str, ...] = LEXICAL_FEATURES + MODEL_FEATURES


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric runs minus a short stopword list (no stemming)."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def _bigrams(tokens: Sequence[str]) -> set[tuple[str, str]]:
    return set(itertools.pairwise(tokens))


def local_bm25(query: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    """BM25 of each document for the query's distinct terms, with document frequencies and the average
    length taken over ``documents`` alone (k1 0.9, b 0.4)."""
    n = len(documents)
    if n == 0:
        return []
    frequencies = [Counter(d) for d in documents]
    avgdl = sum(len(d) for d in documents) / n or 1.0
    scores = []
    terms = set(query)
    document_frequency = {t: sum(1 for f in frequencies if t in f) for t in terms}
    for tokens, counts in zip(documents, frequencies, strict=True):
        norm = LOCAL_K1 * (1 - LOCAL_B + LOCAL_B * len(tokens) / avgdl)
        score = 0.0
        for term in terms:
            tf = counts.get(term, 0)
            if tf:
                score += bm25_idf(doc_count=n, doc_freq=document_frequency[term]) * tf / (tf + norm)
        scores.append(score)
    return scores


def list_features(
    query: str, documents: Sequence[str], model_scores: Sequence[float] | None = None
) -> list[tuple[float, ...]]:
    """One row per document (in the given, first-stage order), columns as ``FEATURE_NAMES``; without
    ``model_scores`` the model columns are 0."""
    if model_scores is not None and len(model_scores) != len(documents):
        raise ValueError(f"{len(model_scores)} model scores for {len(documents)} documents")
    query_tokens = tokenize(query)
    query_terms = set(query_tokens)
    query_bigrams = _bigrams(query_tokens)
    tokens = [tokenize(d) for d in documents]
    bm25 = local_bm25(query_tokens, tokens)
    scores = list(model_scores) if model_scores is not None else [0.0] * len(documents)
    ranks = model_ranks(scores)
    best = max(scores, default=0.0)
    mean = sum(scores) / len(scores) if scores else 0.0
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores)) if scores else 0.0
    rows: list[tuple[float, ...]] = []
    for position, (doc_tokens, lexical) in enumerate(zip(tokens, bm25, strict=True), start=1):
        i = position - 1
        present = set(doc_tokens)
        coverage = len(query_terms & present) / len(query_terms) if query_terms else 0.0
        bigrams = len(query_bigrams & _bigrams(doc_tokens)) / len(query_bigrams) if query_bigrams else 0.0
        model = (
            (scores[i], float(ranks[i]), scores[i] - best, (scores[i] - mean) / spread if spread else 0.0)
            if model_scores is not None
            else (0.0, 0.0, 0.0, 0.0)
        )
        rows.append(
            (
                float(position),
                1.0 / (DEFAULT_RANK_CONSTANT + position),
                coverage,
                bigrams,
                lexical,
                math.log1p(len(doc_tokens)),
                float(len(query_terms)),
                *model,
            )
        )
    return rows
