"""Learned sparse term weights (SPLADE-tiny) as {token: weight} maps for OpenSearch rank_features.

The ONNX graph returns, per text, the SPLADE weight of every vocabulary entry: max over tokens of
log(1 + relu(logit)), padding masked out. Here the vector is cut to what an index should hold:
special and unused vocabulary entries dropped, weights below ``min_weight`` dropped (rank_features also
needs strictly positive values), then the ``top_k`` heaviest kept. The manifest's defaults (256 terms,
weight ≥ 0.01) keep nearly every term of a 256-token chunk: on NFCorpus abstracts the median is 250
non-zero terms, and the top 128 would hold only 82% of the weight.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from control_plane.models.encoder import ModelEncoder
from control_plane.models.loading import LoadedModel

# [PAD], [CLS], [SEP], [MASK], [UNK] and the [unused0]…[unused993] slots of the BERT vocabulary.
_RESERVED = re.compile(r"^\[[A-Za-z0-9_]+\]$")
DEFAULT_MAX_TOKENS = 2048  # batch × padded length per run: bounds the [run, length, 30522] logits (~250 MB)


def vocabulary(tokenizer: Tokenizer) -> tuple[list[str], npt.NDArray[np.bool_]]:
    """Token strings by id, and a mask of the ids a sparse vector may contain."""
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    tokens = [""] * (max(vocab.values()) + 1)
    for token, index in vocab.items():
        tokens[index] = token
    special = {t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special}
    keep = np.array([bool(t) and t not in special and not _RESERVED.match(t) for t in tokens], dtype=np.bool_)
    return tokens, keep


def top_terms(
    weights: npt.NDArray[np.float32],
    tokens: Sequence[str],
    keep: npt.NDArray[np.bool_],
    *,
    top_k: int,
    min_weight: float,
) -> dict[str, float]:
    """The ``top_k`` heaviest allowed terms with weight ≥ ``min_weight`` (> 0), heaviest first.

    Ties at the cut are broken by token id so the result is deterministic.
    """
    if top_k < 1 or min_weight <= 0:
        raise ValueError("top_k must be ≥ 1 and min_weight > 0")
    candidates = np.flatnonzero(keep[: weights.shape[0]] & (weights >= min_weight))
    order = np.lexsort((candidates, -weights[candidates]))[:top_k]
    return {tokens[i]: float(weights[i]) for i in candidates[order]}


class SparseEncoder(ModelEncoder):
    role = "sparse"

    def __init__(
        self,
        model: LoadedModel,
        *,
        top_k: int | None = None,
        min_weight: float | None = None,
        max_batch: int = 32,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        super().__init__(model, max_batch=max_batch, max_tokens=max_tokens)
        defaults = model.spec.sparse
        self.top_k = top_k if top_k is not None else (defaults.top_k if defaults else 128)
        self.min_weight = (
            min_weight if min_weight is not None else (defaults.min_weight if defaults else 0.01)
        )
        if self.top_k < 1 or self.min_weight <= 0:
            raise ValueError("top_k must be ≥ 1 and min_weight > 0 (rank_features needs positive weights)")
        self._tokens, self._keep = vocabulary(model.tokenizer.tokenizer)

    def weights(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Full vocabulary weights, one row per text (before any cut)."""
        out = np.zeros((len(texts), len(self._tokens)), dtype=np.float32)
        for run in self._model.tokenizer.runs(texts, self.max_batch, self.max_tokens):
            out[run.indices] = self._model.session.run(run.feeds(self._model.session.input_names))
        return out

    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        if not texts:
            return []
        return [
            top_terms(row, self._tokens, self._keep, top_k=self.top_k, min_weight=self.min_weight)
            for row in self.weights(texts)
        ]


@lru_cache(maxsize=4)
def token_id_vocabulary(model_name: str) -> Mapping[str, int]:
    """``{word piece: id}`` of the sparse model's tokenizer (digest-checked): the keys a SEISMIC
    ``sparse_vector`` field holds and is queried with instead of the word pieces."""
    from control_plane.models.artifacts import verified_artifact
    from control_plane.models.manifest import load_manifest

    manifest = load_manifest()
    tokenizer_path = verified_artifact(manifest, manifest.model(model_name), None).tokenizer
    return MappingProxyType(Tokenizer.from_file(str(tokenizer_path)).get_vocab(with_added_tokens=True))
