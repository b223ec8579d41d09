"""The cross-encoder in PyTorch: the base encoder reads ``[CLS] query [SEP] passage [SEP]`` jointly; the
logit is a scaled cosine between the mean of the query segment's and the passage segment's last hidden
states.

Why this head (measured on this machine, 2 CPU cores, dev = 48 NFCorpus dev queries × 20 BM25
candidates, ``.cache/reranker/run*/validation.jsonl``):

* The base is a sentence model (all-MiniLM-L6-v2) trained so that *mean-pooled* states of related texts
  point the same way. A fresh linear head over the pair's mean sat at chance for 200 steps (listwise
  loss at ln 6, dev AUC 0.49 at step 100): it starts from random logits.
* The segment cosine of the *untrained* joint encoding already ranks dev candidates with AUC 0.66, so
  training starts from a ranker and spends its steps on what only a cross-encoder can learn: query
  tokens attending to passage tokens.
* Adding a linear term over the pair's mean (started at zero) let training lower the train loss while
  dev AUC fell (0.66 → 0.62 → 0.58 at steps 0/200/400): a term that can score a passage without the
  query learns which NFCorpus documents are often relevant in train. A cosine between the two segments
  cannot score a passage alone.

The segments come from ``token_type_ids`` (0: [CLS] query [SEP]; 1: passage [SEP]), so the base must be
BERT-style; the runtime tokenizes pairs the same way (``control_plane.models.cross_encoder``).

Saved as a folder: the encoder as a Hugging Face model (config.json, model.safetensors), the head's scale
as ``classifier.safetensors``, and the tokenizer.json training used. torch and transformers are imported
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
"""The graph's inputs: the head splits the pair into segments by token_type_ids."""
OUTPUT = "relevance_logit"
TOKENIZER_FILE = "tokenizer.json"
HEAD_FILE = "classifier.safetensors"
BGE_SMALL = "bge-small"
"""The one base without a PyTorch package: its weights come from the fp32 ONNX jar (encoder_tuning.source)."""
INITIAL_SCALE = 20.0
"""Cosine → logit at the start: 20 spreads cosines of 0.2–0.6 over 8 logits, the temperature
sentence-transformers trains MiniLM with (MultipleNegativesRankingLoss, scale 20)."""


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
    """The weights of manifest model ``base`` (config.json, model.safetensors, tokenizer.json): the
    installed package's, or for bge-small (served as int8 ONNX) the fp32 graph's weights converted once."""
    if base == BGE_SMALL:
        from model_artifacts.encoder_tuning.source import hf_folder

        return hf_folder()
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

    class Head(torch.nn.Module):  # type: ignore[misc]
        """``scale · cos(query mean, passage mean)``: a score that can only come from the pair."""

        def __init__(self) -> None:
            super().__init__()
            self.scale = torch.nn.Parameter(torch.tensor(INITIAL_SCALE))

        def forward(self, query: Any, passage: Any) -> Any:
            return self.scale * torch.nn.functional.cosine_similarity(query, passage, dim=-1, eps=1e-6)

    class CrossEncoder(torch.nn.Module):  # type: ignore[misc]
        def __init__(self, encoder: Any) -> None:
            super().__init__()
            if encoder.config.model_type != "bert":
                raise ValueError(
                    f"the cross-encoder head needs token_type_ids (a BERT-style base); "
                    f"got a {encoder.config.model_type} model"
                )
            self.encoder = encoder
            self.classifier = Head()

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            in_passage = token_type_ids.unsqueeze(-1).to(hidden.dtype) * mask
            in_query = mask - in_passage
            return self.classifier(_mean(hidden, in_query), _mean(hidden, in_passage))

    def _mean(hidden: Any, weights: Any) -> Any:
        return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)

    _CLASSES[id(torch)] = CrossEncoder
    return CrossEncoder


def torch_scores(
    model: Any, tokenizer: BatchTokenizer, pairs: Sequence[Pair], device: str, batch: int = 64
) -> npt.NDArray[np.float32]:
    """The model's logit for each pair (eval mode, no gradients), tokenized as the runtime tokenizes."""
    torch = torch_lib()
    out = np.zeros(len(pairs), dtype=np.float32)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for run in pair_runs(tokenizer, pairs, max_batch=batch, max_tokens=1 << 30):
            feeds = {k: torch.from_numpy(v).to(device) for k, v in run.feeds(INPUTS).items()}
            out[run.indices] = model(**feeds).float().cpu().numpy()
    model.train(was_training)
    return out
