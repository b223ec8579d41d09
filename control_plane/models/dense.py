"""Dense sentence embeddings: bge-small-bio (bge-small-en-v1.5 fine-tuned here) by default; bge-small,
all-MiniLM-L6-v2 and all-mpnet-base-v2 selectable.

The project's own exports (MiniLM, MPNet) pool and normalise inside the ONNX graph; a graph taken as
published (BGE's from Maven Central) returns token states and is pooled here as the manifest says (CLS,
L2). Either way inner product equals cosine. Queries get the model's query prefix (BGE's instruction),
documents never do: ``encode_queries`` is the one place that adds it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from control_plane.models.encoder import ModelEncoder
from control_plane.models.pooling import pool

FloatMatrix = npt.NDArray[np.float32]


class DenseEncoder(ModelEncoder):
    role = "dense"

    @property
    def dimension(self) -> int:
        return self._model.spec.dimension

    @property
    def query_prefix(self) -> str:
        return self._model.spec.query_prefix

    def encode(self, texts: Sequence[str]) -> FloatMatrix:
        """One unit-norm row per document text, in input order (no prefix)."""
        spec = self._model.spec
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        for run in self._model.tokenizer.runs(texts, self.texts_per_call, self.max_tokens):
            output = self._model.session.run(run.feeds(self._model.session.input_names))
            if output.ndim == 3:  # token states: pool as the manifest says
                output = pool(output, run.attention_mask, spec.pooling, normalize=spec.normalize)
            out[run.indices] = output
        return out

    def encode_queries(self, queries: Sequence[str]) -> FloatMatrix:
        """One unit-norm row per query, each prefixed with the model's query instruction (if any)."""
        return self.encode(with_query_prefix(queries, self.query_prefix))


def with_query_prefix(queries: Sequence[str], prefix: str) -> list[str]:
    """``prefix + query`` for each query; the texts unchanged when the model has no prefix."""
    return [prefix + query for query in queries] if prefix else list(queries)
