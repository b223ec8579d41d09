"""Cutting a SPLADE vocabulary vector into {token: weight}: hand-checked arithmetic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from control_plane.models.sparse import top_terms, vocabulary

TOKENS = ["[PAD]", "[unused0]", "aspirin", "bleeding", "risk", "the", "[CLS]"]
KEEP = np.array([False, False, True, True, True, True, False])
SPLADE_TOKENIZER = (
    Path(__file__).resolve().parents[3] / "model_artifacts" / "onnx" / "splade-tiny" / "tokenizer.json"
)


def _weights(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def test_keeps_the_heaviest_allowed_terms_heaviest_first() -> None:
    w = _weights(9.0, 8.0, 1.5, 2.5, 0.5, 0.004, 7.0)
    terms = top_terms(w, TOKENS, KEEP, top_k=2, min_weight=0.01)
    # [PAD], [unused0] and [CLS] are heavier but reserved; of the rest 2.5 and 1.5 are the two heaviest.
    assert list(terms.items()) == [("bleeding", 2.5), ("aspirin", 1.5)]


def test_min_weight_is_inclusive_and_drops_lighter_terms() -> None:
    w = _weights(0, 0, 0.25, 0.1, 0.0999, 0.0, 0)
    assert top_terms(w, TOKENS, KEEP, top_k=10, min_weight=0.1) == {
        "aspirin": 0.25,
        "bleeding": pytest.approx(0.1),
    }


def test_zero_weights_never_appear_even_with_a_tiny_minimum() -> None:
    w = _weights(0, 0, 0.0, 0.0, 0.3, 0.0, 0)
    assert top_terms(w, TOKENS, KEEP, top_k=10, min_weight=1e-30) == {"risk": pytest.approx(0.3)}


def test_ties_at_the_cut_are_broken_by_token_id() -> None:
    w = _weights(0, 0, 1.0, 1.0, 1.0, 0.0, 0)
    assert list(top_terms(w, TOKENS, KEEP, top_k=2, min_weight=0.01)) == ["aspirin", "bleeding"]


@pytest.mark.parametrize(("top_k", "min_weight"), [(0, 0.1), (5, 0.0), (5, -1.0)])
def test_invalid_cut_parameters_are_refused(top_k: int, min_weight: float) -> None:
    with pytest.raises(ValueError, match="top_k"):
        top_terms(_weights(0, 0, 1, 1, 1, 1, 0), TOKENS, KEEP, top_k=top_k, min_weight=min_weight)


def test_vocabulary_of_the_committed_tokenizer_masks_special_and_unused_entries() -> None:
    tokens, keep = vocabulary(Tokenizer.from_file(str(SPLADE_TOKENIZER)))
    assert len(tokens) == 30522
    index = {t: i for i, t in enumerate(tokens)}
    for reserved in ("[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]", "[unused0]", "[unused993]"):
        assert not keep[index[reserved]], reserved
    for word in ("bleeding", "##rin", "[", "]", "."):
        assert keep[index[word]], word
    assert int((~keep).sum()) == 999  # 5 special tokens + 994 unused slots
