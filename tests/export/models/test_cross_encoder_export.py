"""Export-time check of the cross-encoder runtime: a randomly initialised two-layer BERT cross-encoder
built with the training code's module, exported with the project's exporter into a temporary folder and
loaded through a temporary manifest (as the service loads the real one), scores like the torch module.

Needs torch, transformers and onnx (`make test-export` installs the export extra); the default suite
checks the committed models against recorded PyTorch outputs instead (tests/integration/models).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from cross_encoder_pairs import (
    MAX_LENGTH,
    PAIRS,
    REPO_ROOT,
    TOKENIZER,
    assert_segment_ids_change_the_score,
    pair_tokenizer,
)

from control_plane.checksums import sha256_file
from control_plane.models.cross_encoder import CrossEncoderScorer, encode_pairs
from control_plane.models.manifest import load_manifest


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """(the torch module, a manifest whose rerank model 'tiny-ce' is its fp32 ONNX export)."""
    torch = pytest.importorskip("torch", reason="the export suite needs the export extra: make test-export")
    transformers = pytest.importorskip("transformers", reason="needs transformers (the export extra)")
    pytest.importorskip("onnx", reason="needs onnx (the export extra)")
    sys.path.insert(0, str(REPO_ROOT))  # model_artifacts/ is repository tooling, not an installed package
    from model_artifacts.export import TorchModel, export_onnx
    from model_artifacts.reranker.model import INPUTS, OUTPUT, cross_encoder_module

    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        attn_implementation="eager",  # as training loads the real model
    )
    module = cross_encoder_module(transformers.BertModel(config, add_pooling_layer=False)).eval()
    root = tmp_path_factory.mktemp("tiny-ce")
    folder = root / "onnx" / "tiny-ce"
    folder.mkdir(parents=True)
    export_onnx(TorchModel(module=module, input_names=INPUTS, output_name=OUTPUT), folder / "model.onnx")
    (folder / "tokenizer.json").write_bytes(TOKENIZER.read_bytes())
    (folder / "config.json").write_text(json.dumps({"name": "tiny-ce", "role": "rerank"}))
    entry = {
        "name": "tiny-ce",
        "role": "rerank",
        "source": {"package": "none", "version": "0", "path": "none", "install": "none"},
        "tokenizer": "MiniLM tokenizer.json",
        "max_length": MAX_LENGTH,
        "dimension": 1,
        "pooling": "mean",
        "licence": "test only",
        "runtime_variant": "fp32",
        "build": "tests/unit/models/test_cross_encoder.py",
        "artifacts": {
            "fp32": {
                "path": "onnx/tiny-ce",
                "committed": False,
                "files": {
                    p.name: {"sha256": sha256_file(p), "bytes": p.stat().st_size} for p in folder.iterdir()
                },
            }
        },
    }
    manifest = root / "model_artifacts" / "manifest.yaml"  # paths are relative to the manifest's grandparent
    manifest.parent.mkdir()
    manifest.write_text(yaml.safe_dump({"version": 1, "models": [entry]}))
    return module, manifest


def _torch_logits(module: Any, pairs: list[tuple[str, str]]) -> np.ndarray:
    """Each pair alone (no padding), so the ONNX batch's padding and masking are checked too."""
    import torch

    out = []
    with torch.no_grad():
        for encoding in encode_pairs(pair_tokenizer(), pairs):
            ids = torch.tensor([encoding.ids])
            logit = module(ids, torch.tensor([encoding.attention_mask]), torch.tensor([encoding.type_ids]))
            out.append(float(logit[0]))
    return np.array(out)


# torch's TorchScript exporter warns about tracing internals of transformers; parity is what is checked.
@pytest.mark.filterwarnings("ignore::Warning")
def test_onnx_scores_equal_the_torch_module_pair_by_pair(tiny: tuple[Any, Path]) -> None:
    module, manifest = tiny
    scorer = CrossEncoderScorer.load("tiny-ce", manifest=load_manifest(manifest), device="cpu")
    assert scorer.name == "tiny-ce" and scorer.model.spec.role == "rerank"
    np.testing.assert_allclose(scorer.score_pairs(PAIRS), _torch_logits(module, PAIRS), atol=1e-5)


def test_score_is_per_document_in_input_order_and_independent_of_batching(tiny: tuple[Any, Path]) -> None:
    _, manifest = tiny
    loaded = load_manifest(manifest)
    batched = CrossEncoderScorer.load("tiny-ce", manifest=loaded, device="cpu", max_batch=32)
    single = CrossEncoderScorer.load("tiny-ce", manifest=loaded, device="cpu", max_batch=1)
    documents = [p for _, p in PAIRS]
    scores = batched.score("aspirin bleeding", documents)
    assert scores == pytest.approx(
        single.score("aspirin bleeding", documents), abs=1e-5
    )  # logit = 20 × cosine: fp32 padding noise ×20
    assert scores == pytest.approx(batched.score_pairs([("aspirin bleeding", d) for d in documents]).tolist())
    assert batched.score("aspirin bleeding", []) == []


def test_segment_ids_reach_the_graph_and_change_the_score(tiny: tuple[Any, Path]) -> None:
    _, manifest = tiny
    assert_segment_ids_change_the_score(
        CrossEncoderScorer.load("tiny-ce", manifest=load_manifest(manifest), device="cpu")
    )
