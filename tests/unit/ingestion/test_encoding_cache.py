"""The encoding cache over the real committed models: cached outputs equal fresh ones exactly, only
misses reach the model, and another model key never reads this model's entries."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from control_plane.ingestion.encoding_cache import (
    CachedDenseModel,
    CachedSparseModel,
    EncodingCache,
    model_key,
    text_key,
)
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder

TEXTS = [
    "Serious adverse events were reported in 12 patients (8%).",
    "Inclusion criteria: adults aged 18–65 with type 2 diabetes.",
    "Métformine 500 mg twice daily.",
]


class Recording:
    """The real dense encoder, remembering which texts reached it."""

    def __init__(self, encoder: DenseEncoder) -> None:
        self.encoder = encoder
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.seen.extend(texts)
        return self.encoder.encode(texts)


@pytest.fixture(scope="module")
def dense() -> DenseEncoder:
    return DenseEncoder.load()


@pytest.fixture(scope="module")
def sparse() -> SparseEncoder:
    return SparseEncoder.load()


def test_dense_rows_come_back_identical_and_only_misses_are_encoded(
    dense: DenseEncoder, tmp_path: Path
) -> None:
    recording = Recording(dense)
    cache = EncodingCache(tmp_path)
    cached = CachedDenseModel(recording, cache, model_key(dense.model))
    first = cached.encode([TEXTS[0], TEXTS[1], TEXTS[0]])
    second = cached.encode([TEXTS[1], TEXTS[2], TEXTS[0]])
    assert recording.seen == [TEXTS[0], TEXTS[1], TEXTS[2]]  # each text once
    np.testing.assert_array_equal(first[[1, 0]], second[[0, 2]])  # stored bytes, exactly
    # equal to a fresh encode up to batch composition (padding changes the last float bits)
    np.testing.assert_allclose(second, dense.encode([TEXTS[1], TEXTS[2], TEXTS[0]]), atol=1e-5)
    assert (cache.hits, cache.misses) == (2, 4)


def test_sparse_maps_round_trip_exactly_with_term_order(sparse: SparseEncoder, tmp_path: Path) -> None:
    key = model_key(sparse.model, top_k=sparse.top_k, min_weight=sparse.min_weight)
    fresh = CachedSparseModel(sparse, EncodingCache(tmp_path), key).encode(TEXTS)
    cache = EncodingCache(tmp_path)
    again = CachedSparseModel(sparse, cache, key).encode(TEXTS)
    assert (cache.hits, cache.misses) == (3, 0)
    assert again == fresh == sparse.encode(TEXTS)
    assert [list(m) for m in again] == [list(m) for m in fresh]


def test_model_keys_differ_by_model_and_options(
    dense: DenseEncoder, sparse: SparseEncoder, tmp_path: Path
) -> None:
    assert model_key(dense.model) != model_key(sparse.model)
    assert model_key(sparse.model, top_k=256) != model_key(sparse.model, top_k=128)
    cache = EncodingCache(tmp_path)
    CachedDenseModel(dense, cache, "model-a").encode(TEXTS[:1])
    recording = Recording(dense)
    CachedDenseModel(recording, cache, "model-b").encode(TEXTS[:1])
    assert recording.seen == TEXTS[:1]
    assert set(cache.get_many("model-a", [text_key(TEXTS[0])])) == {text_key(TEXTS[0])}


def test_many_texts_cross_the_parameter_limit(dense: DenseEncoder, tmp_path: Path) -> None:
    texts = [f"patient {i}" for i in range(1200)]
    CachedDenseModel(dense, EncodingCache(tmp_path), "m").encode(texts)
    recording = Recording(dense)
    again = CachedDenseModel(recording, EncodingCache(tmp_path), "m").encode(texts)
    assert recording.seen == [] and again.shape == (1200, dense.dimension)
