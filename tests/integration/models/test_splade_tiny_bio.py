"""splade-tiny-bio, the sparse model fine-tuned here: the committed graph through the runtime encoder
against the PyTorch outputs recorded at export (no torch needed), and what fine-tuning changed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from control_plane.models import SparseEncoder

REFERENCE = Path(__file__).resolve().parents[3] / "model_artifacts" / "reference" / "splade-tiny-bio.npz"


def test_the_committed_graph_matches_the_pytorch_reference_recorded_at_export(
    splade_bio: SparseEncoder,
) -> None:
    data = np.load(REFERENCE)
    texts = [str(t) for t in data["texts"]]
    assert np.abs(splade_bio.weights(texts) - data["torch"]).max() <= 1e-4  # fp32, as splade-tiny


def test_it_is_a_different_model_from_its_start(splade: SparseEncoder, splade_bio: SparseEncoder) -> None:
    text = ["Statin therapy and the risk of myopathy in older adults"]
    tuned, base = splade_bio.weights(text), splade.weights(text)
    assert tuned.shape == base.shape == (1, 30522)
    assert np.abs(tuned - base).max() > 0.05  # new weights, not a copy of splade-tiny's file


def test_query_terms_keep_the_question_s_own_pieces_and_are_fewer(
    splade: SparseEncoder, splade_bio: SparseEncoder
) -> None:
    query = ["aspirin gastrointestinal bleeding"]
    (terms,), (base_terms,) = splade_bio.encode(query), splade.encode(query)
    heaviest = sorted(terms, key=terms.__getitem__, reverse=True)[:6]
    assert {"bleeding", "##rin", "##pi", "gas"} <= set(heaviest), heaviest  # "aspirin" is as ##pi ##rin
    # The FLOPS regulariser made vectors sparser (nfcorpus/dev: 9.0 terms a query against 14.9).
    assert len(terms) < len(base_terms)
