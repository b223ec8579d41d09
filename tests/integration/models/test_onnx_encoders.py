"""The committed ONNX artifacts through the runtime encoders, checked against PyTorch outputs recorded at
export time (model_artifacts/reference/*.npz), so this needs no torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from control_plane.models import DenseEncoder, SimilarityScorer, SparseEncoder

REFERENCE = Path(__file__).resolve().parents[3] / "model_artifacts" / "reference"


def _reference(name: str) -> tuple[list[str], np.ndarray]:
    data = np.load(REFERENCE / f"{name}.npz")
    return [str(t) for t in data["texts"]], data["torch"]


def test_minilm_matches_the_pytorch_reference_recorded_at_export(minilm: DenseEncoder) -> None:
    texts, reference = _reference("minilm")
    vectors = minilm.encode(texts)
    cosines = np.sum(vectors * reference, axis=1)
    # The committed variant is int8w (weight-only int8): 0.9992 at export; fp32 would be ~1 - 1e-7.
    assert cosines.min() >= 0.998, cosines


def test_minilm_vectors_are_384_d_unit_norm_and_deterministic(minilm: DenseEncoder) -> None:
    texts = ["aspirin", "Low-dose aspirin and gastrointestinal bleeding in older adults " * 8]
    first, second = minilm.encode(texts), minilm.encode(texts)
    assert first.shape == (2, 384) and first.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(first, second)
    alone = minilm.encode(texts[:1])
    np.testing.assert_allclose(alone[0], first[0], atol=1e-5)  # padding next to a long text changes nothing


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(minilm: DenseEncoder) -> None:
    anchor, paraphrase, unrelated = minilm.encode(
        [
            "Aspirin increases the risk of bleeding in the stomach.",
            "Gastric haemorrhage is more likely in people who take aspirin.",
            "The football match was postponed because of heavy snow.",
        ]
    )
    assert float(anchor @ paraphrase) > float(anchor @ unrelated) + 0.3


def test_empty_input_gives_an_empty_matrix(minilm: DenseEncoder, splade: SparseEncoder) -> None:
    assert minilm.encode([]).shape == (0, 384)
    assert splade.encode([]) == []


def test_splade_matches_the_pytorch_reference_recorded_at_export(splade: SparseEncoder) -> None:
    texts, reference = _reference("splade-tiny")
    assert np.abs(splade.weights(texts) - reference).max() <= 1e-4  # committed variant is fp32


def test_splade_query_terms_for_aspirin_bleeding(splade: SparseEncoder) -> None:
    (terms,) = splade.encode(["aspirin bleeding"])
    # BERT's uncased vocabulary has no "aspirin": it is the word pieces as ##pi ##rin.
    assert {"bleeding", "##pi", "##rin", "as"} <= set(terms)
    assert terms["bleeding"] > 1.0
    weights = list(terms.values())
    assert weights == sorted(weights, reverse=True)
    assert all(w >= splade.min_weight > 0 for w in weights)
    assert not any(t.startswith("[") and t.endswith("]") for t in terms)


def test_splade_top_k_and_min_weight_cut_the_same_vector(splade: SparseEncoder) -> None:
    text = "Statin use and breast cancer survival: a nationwide cohort study from Finland"
    (full,) = splade.encode([text])
    cut = SparseEncoder(splade.model, top_k=3, min_weight=0.5)
    (top,) = cut.encode([text])
    expected = [t for t, w in full.items() if w >= 0.5][:3]
    assert list(top) == expected
    assert all(top[t] == full[t] for t in top)


@pytest.mark.parametrize("padding_partner", ["short", "a much longer companion text " * 20])
def test_splade_weights_do_not_depend_on_the_batch(splade: SparseEncoder, padding_partner: str) -> None:
    (alone,) = splade.encode(["aspirin bleeding"])
    together = splade.encode(["aspirin bleeding", padding_partner])[0]
    assert together.keys() == alone.keys()
    assert max(abs(together[t] - alone[t]) for t in alone) <= 1e-5


def test_similarity_scorer_ranks_the_relevant_document_first(minilm: DenseEncoder) -> None:
    scorer = SimilarityScorer(minilm, "minilm")
    scores = scorer.score(
        "does aspirin cause bleeding",
        ["Share prices fell sharply on Monday.", "Aspirin use is associated with gastrointestinal bleeding."],
    )
    assert scores[1] > scores[0] and all(-1.0 <= s <= 1.0 for s in scores)
    assert scorer.score("q", []) == []
