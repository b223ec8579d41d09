"""The cross-encoder in PyTorch: the base encoder, mean pooling over the pair's tokens, one linear logit.

A sequence-classification head with ``num_labels=1``, like ``BertForSequenceClassification``, except that
it reads the mean of the last hidden states instead of BERT's pooled [CLS]. Measured on the MiniLM
checkpoint: its pooler output is nearly constant across pairs (mean |value| 0.05, std across pairs 0.03,
because sentence-transformers trained mean pooling and never the pooler), so a pooler head starts with
logits that differ by ±0.03 and a smoke run's loss sat at chance (ln 4) for 20 steps. Mean pooling is the
representation the encoder was trained to make. The pair enters with token_type_ids (query segment 0,
passage segment 1).

Saved as a folder: the encoder as a Hugging Face model (config.json, model.safetensors), the head as
``classifier.safetensors``, and the tokenizer.json training used. torch and transformers are imported
lazily and typed as Any: they are the ``export`` extra, absent from a runtime install.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from control_plane.models.cross_encoder import Pair, pair_runs
from control_plane.models.manifest import load_manifest
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts import sources

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "relevance_logit"
TOKENIZER_FILE = "tokenizer.json"
HEAD_FILE = "classifier.safetensors"


def torch_lib() -> Any:
    try:
        return importlib.import_module("torch")
    except ImportError:
        raise SystemExit("torch is not installed: pip install -e '.[export]' (torch==2.13.0)") from None


def transformers_lib() -> Any:
    try:
        module = importlib.import_module("transformers")
    except ImportError:
        raise SystemExit("transformers is not installed: pip install -e '.[export]'") from None
    module.logging.set_verbosity_error()
    module.logging.disable_progress_bar()  # per-file load/save bars would break the training bar
    return module


def base_folder(base: str, cache: Path) -> Path:
    """The installed weights of manifest model ``base`` (config.json, model.safetensors, tokenizer.json)."""
    return sources.source_folder(load_manifest().model(base), cache)


def cross_encoder_module(encoder: Any) -> Any:
    """``encoder`` (a Hugging Face base model) under mean pooling and a new one-logit head."""
    return _module_class(torch_lib())(encoder)


def new_cross_encoder(folder: Path, seed: int) -> Any:
    """The base encoder with a freshly initialised head (initialisation drawn from ``seed``)."""
    torch_lib().manual_seed(seed)
    encoder = transformers_lib().AutoModel.from_pretrained(
        str(folder), attn_implementation="eager", add_pooling_layer=False
    )
    return cross_encoder_module(encoder)


def load_cross_encoder(folder: Path) -> Any:
    """A saved cross-encoder (a checkpoint or a run's final model)."""
    encoder = transformers_lib().AutoModel.from_pretrained(
        str(folder), attn_implementation="eager", add_pooling_layer=False
    )
    model = cross_encoder_module(encoder)
    head = importlib.import_module("safetensors.torch").load_file(str(folder / HEAD_FILE))
    model.classifier.load_state_dict(head)
    return model


def save_cross_encoder(model: Any, folder: Path, tokenizer: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    model.encoder.save_pretrained(str(folder), safe_serialization=True)
    state = {k: v.detach().cpu().contiguous() for k, v in model.classifier.state_dict().items()}
    importlib.import_module("safetensors.torch").save_file(state, str(folder / HEAD_FILE))
    shutil.copyfile(tokenizer, folder / TOKENIZER_FILE)


def input_names(model: Any) -> tuple[str, ...]:
    """BERT takes token_type_ids; MPNet has no segment embeddings."""
    return INPUTS if model.encoder.config.model_type == "bert" else INPUTS[:2]


def freeze_word_embeddings(model: Any) -> int:
    """Stop training the word embedding table; returns the number of frozen parameters."""
    weight = model.encoder.embeddings.word_embeddings.weight
    weight.requires_grad_(False)
    return int(weight.numel())


def is_head(parameter_name: str) -> bool:
    return parameter_name.startswith("classifier.")


_CLASSES: dict[int, Any] = {}


def _module_class(torch: Any) -> Any:
    """The module class, built once per torch module (torch is imported lazily, so no top-level class)."""
    if id(torch) in _CLASSES:
        return _CLASSES[id(torch)]

    class CrossEncoder(torch.nn.Module):  # type: ignore[misc]
        def __init__(self, encoder: Any) -> None:
            super().__init__()
            self.encoder = encoder
            self.dropout = torch.nn.Dropout(encoder.config.hidden_dropout_prob)
            self.classifier = torch.nn.Linear(encoder.config.hidden_size, 1)

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Any:
            kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
            if token_type_ids is not None:
                kwargs["token_type_ids"] = token_type_ids
            hidden = self.encoder(**kwargs).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            return self.classifier(self.dropout(pooled))[:, 0]

    _CLASSES[id(torch)] = CrossEncoder
    return CrossEncoder


def torch_scores(
    model: Any, tokenizer: BatchTokenizer, pairs: Sequence[Pair], device: str, batch: int = 64
) -> npt.NDArray[np.float32]:
    """The model's logit for each pair (eval mode, no gradients), tokenized as the runtime tokenizes."""
    torch = torch_lib()
    names = input_names(model)
    out = np.zeros(len(pairs), dtype=np.float32)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for run in pair_runs(tokenizer, pairs, max_batch=batch, max_tokens=1 << 30):
            feeds = {k: torch.from_numpy(v).to(device) for k, v in run.feeds(names).items()}
            out[run.indices] = model(**feeds).float().cpu().numpy()
    model.train(was_training)
    return out
