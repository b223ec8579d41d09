"""Query–passage relevance from a cross-encoder: query and passage read together, one logit per pair.

Unlike :class:`~control_plane.models.similarity.SimilarityScorer` (cosine of two separately encoded
texts), the model attends across query and passage tokens. The pair is tokenized as BERT pairs are:
``[CLS] query [SEP] passage [SEP]`` with token_type_ids 0 for the query segment and 1 for the passage,
truncated longest-first to the model's max length (so a long passage gives way before a short query).
Training (model_artifacts/reranker) tokenizes with these same functions, so what the model saw in
training is what it sees here. Scores are raw logits: only their order within one query means anything.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from tokenizers import Encoding

from control_plane.models.loading import LoadedModel, load_model
from control_plane.models.manifest import Manifest
from control_plane.models.runtime import Device
from control_plane.models.tokenization import BatchTokenizer, Run, plan_runs

Pair = tuple[str, str]
FloatVector = npt.NDArray[np.float32]
DEFAULT_MAX_TOKENS = 16384


def pad_encodings(indices: list[int], encodings: Sequence[Encoding], pad_id: int) -> Run:
    """One padded run: ids, attention mask and token type ids, right-padded to the longest encoding."""
    width = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    types = np.zeros((len(encodings), width), dtype=np.int64)
    for row, encoding in enumerate(encodings):
        n = len(encoding.ids)
        ids[row, :n] = encoding.ids
        mask[row, :n] = encoding.attention_mask
        types[row, :n] = encoding.type_ids
    return Run(indices=indices, input_ids=ids, attention_mask=mask, token_type_ids=types)


def encode_pairs(tokenizer: BatchTokenizer, pairs: Sequence[Pair]) -> list[Encoding]:
    """Each (query, passage) as one pair encoding, truncated to the tokenizer's max length."""
    return tokenizer.tokenizer.encode_batch([(query, passage) for query, passage in pairs])


def pair_runs(tokenizer: BatchTokenizer, pairs: Sequence[Pair], max_batch: int, max_tokens: int) -> list[Run]:
    """The pairs cut into padded runs, shortest first (see ``tokenization.plan_runs``)."""
    encodings = encode_pairs(tokenizer, pairs)
    plan = plan_runs([len(e.ids) for e in encodings], max_batch, max_tokens)
    return [pad_encodings(indices, [encodings[i] for i in indices], tokenizer.pad_id) for indices in plan]


class CrossEncoderScorer:
    """Scores passages against a query with a cross-encoder ONNX graph (output: one logit per pair)."""

    def __init__(
        self, model: LoadedModel, *, max_batch: int = 32, max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
        if model.spec.role != "rerank":
            raise ValueError(f"model '{model.spec.name}' is a {model.spec.role} model, not a rerank model")
        missing = {"input_ids", "attention_mask"} - set(model.session.input_names)
        if missing:
            raise ValueError(f"{model.files.model} lacks the inputs {sorted(missing)} of a cross-encoder")
        self._model = model
        self.max_batch = max_batch
        self.max_tokens = max_tokens

    @classmethod
    def load(
        cls,
        name: str | None = None,
        *,
        manifest: Manifest | None = None,
        variant: str | None = None,
        device: Device = "auto",
        threads: int = 0,
        max_batch: int = 32,
    ) -> CrossEncoderScorer:
        model = load_model(name, "rerank", manifest=manifest, variant=variant, device=device, threads=threads)
        return cls(model, max_batch=max_batch)

    @property
    def name(self) -> str:
        return self._model.spec.name

    @property
    def model(self) -> LoadedModel:
        return self._model

    def score_pairs(self, pairs: Sequence[Pair]) -> FloatVector:
        """One logit per (query, passage) pair, in input order."""
        out = np.zeros(len(pairs), dtype=np.float32)
        session = self._model.session
        per_call = self._model.spec.texts_per_call(self.max_batch)
        for run in pair_runs(self._model.tokenizer, pairs, per_call, self.max_tokens):
            out[run.indices] = session.run(run.feeds(session.input_names)).reshape(-1)
        return out

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """The relevance of each document to ``query`` (the interface SimilarityScorer also offers)."""
        if not documents:
            return []
        return [float(s) for s in self.score_pairs([(query, d) for d in documents])]
