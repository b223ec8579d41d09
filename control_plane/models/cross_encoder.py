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

from control_plane.models.encoder import DEFAULT_MAX_TOKENS, ModelEncoder
from control_plane.models.loading import LoadedModel
from control_plane.models.tokenization import BatchTokenizer, Run, pad_encodings, plan_runs

Pair = tuple[str, str]
FloatVector = npt.NDArray[np.float32]


def encode_pairs(tokenizer: BatchTokenizer, pairs: Sequence[Pair]) -> list[Encoding]:
    """Each (query, passage) as one pair encoding, truncated to the tokenizer's max length."""
    return tokenizer.tokenizer.encode_batch([(query, passage) for query, passage in pairs])


def pair_runs(tokenizer: BatchTokenizer, pairs: Sequence[Pair], max_batch: int, max_tokens: int) -> list[Run]:
    """The pairs cut into padded runs, shortest first (see ``tokenization.plan_runs``)."""
    encodings = encode_pairs(tokenizer, pairs)
    plan = plan_runs([len(e.ids) for e in encodings], max_batch, max_tokens)
    return [pad_encodings(indices, [encodings[i] for i in indices], tokenizer.pad_id) for indices in plan]


class CrossEncoderScorer(ModelEncoder):
    """Scores passages against a query with a cross-encoder ONNX graph (output: one logit per pair)."""

    role = "rerank"

    def __init__(
        self, model: LoadedModel, *, max_batch: int = 32, max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
        super().__init__(model, max_batch=max_batch, max_tokens=max_tokens)
        missing = {"input_ids", "attention_mask"} - set(model.session.input_names)
        if missing:
            raise ValueError(f"{model.files.model} lacks the inputs {sorted(missing)} of a cross-encoder")

    def score_pairs(self, pairs: Sequence[Pair]) -> FloatVector:
        """One logit per (query, passage) pair, in input order."""
        out = np.zeros(len(pairs), dtype=np.float32)
        session = self._model.session
        for run in pair_runs(self._model.tokenizer, pairs, self.texts_per_call, self.max_tokens):
            out[run.indices] = session.run(run.feeds(session.input_names)).reshape(-1)
        return out

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """The relevance of each document to ``query`` (the interface SimilarityScorer also offers)."""
        if not documents:
            return []
        return [float(s) for s in self.score_pairs([(query, d) for d in documents])]
