"""The dense encoder in PyTorch, as the service serves it: [CLS] state, L2-normalised; queries prefixed.

Built from :func:`weights.bert_state` (the fp32 graph) or a saved fine-tuned folder. torch and
transformers are the ``export`` extra, imported lazily through the reranker's helpers.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from control_plane.models.dense import with_query_prefix
from control_plane.models.manifest import load_manifest
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts.encoder_tuning.weights import Array, bert_shape
from model_artifacts.reranker.model import torch_lib, transformers_lib

BASE_MODEL = "bge-small"
"""The served model this tuning starts from: its manifest entry gives the query prefix."""
ATTENTION_HEADS = 12
"""bge-small-en-v1.5's config: heads do not show in the weights' shapes."""
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def query_prefix() -> str:
    """bge-small's query instruction, as the manifest (and so the service) has it; passages get none."""
    return load_manifest().model(BASE_MODEL).query_prefix


def encoder_from_state(state: Mapping[str, Array]) -> Any:
    """A ``BertModel`` (no pooler) holding ``state`` exactly; a missing or extra tensor is an error."""
    torch, transformers = torch_lib(), transformers_lib()
    shape = bert_shape(state)
    config = transformers.BertConfig(
        vocab_size=shape.vocab_size,
        hidden_size=shape.hidden_size,
        num_hidden_layers=shape.num_hidden_layers,
        num_attention_heads=ATTENTION_HEADS,
        intermediate_size=shape.intermediate_size,
        max_position_embeddings=shape.max_position_embeddings,
        type_vocab_size=shape.type_vocab_size,
        layer_norm_eps=1e-12,
    )
    model = transformers.BertModel(config, add_pooling_layer=False)
    tensors = {name: torch.from_numpy(np.array(value)) for name, value in state.items()}
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    missing = [name for name in missing if not name.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(f"weights do not fit BERT: missing {missing}, unexpected {unexpected}")
    return model


def load_onnx(path: Path) -> Any:
    """The graph at ``path`` (onnx is the ``export`` extra, imported here only)."""
    return importlib.import_module("onnx").load(str(path))


def save_onnx(model: Any, path: Path) -> None:
    importlib.import_module("onnx").save(model, str(path))


def load_encoder(folder: Path) -> Any:
    """A fine-tuned encoder saved with ``save_pretrained``."""
    return transformers_lib().BertModel.from_pretrained(str(folder), add_pooling_layer=False)


def cls_embeddings(encoder: Any, feeds: Mapping[str, Any]) -> Any:
    """[CLS] states, L2-normalised (with gradients when the caller wants them)."""
    torch = torch_lib()
    hidden = encoder(**feeds).last_hidden_state[:, 0]
    return torch.nn.functional.normalize(hidden.float(), dim=-1)


def encode(
    encoder: Any,
    tokenizer: BatchTokenizer,
    texts: Sequence[str],
    *,
    queries: bool = False,
    batch: int = 64,
    max_tokens: int = 16384,
    progress: str | None = None,
) -> npt.NDArray[np.float32]:
    """Unit vectors for ``texts`` (eval mode, bf16 autocast, no gradients); ``queries`` adds the prefix;
    ``progress`` names a progress bar (none without it)."""
    torch = torch_lib()
    inputs = with_query_prefix(texts, query_prefix()) if queries else list(texts)
    out = np.zeros((len(inputs), encoder.config.hidden_size), dtype=np.float32)
    was_training = encoder.training
    encoder.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        runs = tokenizer.runs(inputs, max_batch=batch, max_tokens=max_tokens)
        for run in tqdm(runs, desc=progress, unit="batch", disable=progress is None):
            feeds = {k: torch.from_numpy(v) for k, v in run.feeds(INPUTS).items()}
            out[run.indices] = cls_embeddings(encoder, feeds).cpu().numpy()
    encoder.train(was_training)
    return out
