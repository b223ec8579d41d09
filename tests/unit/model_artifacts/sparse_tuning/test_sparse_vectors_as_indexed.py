"""Evaluation vectors are cut exactly as the service cuts a vector for the index, and the doc-only
query side is the query's allowed word pieces at weight 1."""

from __future__ import annotations

import numpy as np

from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.sparse import top_terms, vocabulary
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts.sparse_tuning.evaluate import doc_only_queries
from model_artifacts.sparse_tuning.vectors import cut_rows

TOKENIZER = REPOSITORY_ROOT / "model_artifacts" / "onnx" / "splade-tiny" / "tokenizer.json"


def test_rows_are_cut_like_the_service_cut_for_the_index() -> None:
    tokenizer = BatchTokenizer.from_file(TOKENIZER, 256)
    tokens, keep = vocabulary(tokenizer.tokenizer)
    rng = np.random.default_rng(7)
    weights = np.where(rng.random((3, len(tokens))) < 0.01, rng.random((3, len(tokens))), 0).astype(
        np.float32
    )
    weights[0, 101] = 5.0  # [CLS]: never kept
    weights[1, 2000:2010] = 0.5  # ties at the cut: broken by token id
    cut = cut_rows(weights, keep, top_k=8, min_weight=0.05)
    for row in range(3):
        expected = top_terms(weights[row], tokens, keep, top_k=8, min_weight=0.05)
        span = slice(int(cut.indptr[row]), int(cut.indptr[row + 1]))
        got = {tokens[i]: float(v) for i, v in zip(cut.ids[span], cut.values[span], strict=True)}
        assert got == expected
    assert (cut.rows, cut.width) == weights.shape


def test_a_row_with_nothing_above_the_floor_is_empty() -> None:
    keep = np.ones(5, dtype=bool)
    cut = cut_rows(np.zeros((2, 5), dtype=np.float32), keep, top_k=3, min_weight=0.01)
    assert (cut.rows, cut.width, cut.entries) == (2, 5, 0)


def test_doc_only_queries_hold_each_allowed_word_piece_once_at_weight_one() -> None:
    tokenizer = BatchTokenizer.from_file(TOKENIZER, 256)
    tokens, _ = vocabulary(tokenizer.tokenizer)
    queries = doc_only_queries(tokenizer, ["statin statin therapy"], len(tokens))
    held = {tokens[i]: float(v) for i, v in zip(queries.ids, queries.values, strict=True)}
    pieces = {
        p for p in tokenizer.tokenizer.encode("statin statin therapy").tokens if p not in ("[CLS]", "[SEP]")
    }
    assert held == dict.fromkeys(pieces, 1.0)
