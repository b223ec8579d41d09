"""Dense sentence embeddings (all-MiniLM-L6-v2 by default, all-mpnet-base-v2 when selected).

Mean pooling over attention-masked tokens and L2 normalisation are inside the ONNX graph, so the vectors
equal the sentence-transformers model's (checked at export time) and inner product equals cosine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from control_plane.models.loading import LoadedModel, load_model
from control_plane.models.manifest import Manifest
from control_plane.models.runtime import Device

FloatMatrix = npt.NDArray[np.float32]
DEFAULT_MAX_TOKENS = 16384


class DenseEncoder:
    def __init__(
        self, model: LoadedModel, *, max_batch: int = 32, max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
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
    ) -> DenseEncoder:
        model = load_model(name, "dense", manifest=manifest, variant=variant, device=device, threads=threads)
        return cls(model, max_batch=max_batch)

    @property
    def name(self) -> str:
        return self._model.spec.name

    @property
    def dimension(self) -> int:
        return self._model.spec.dimension

    @property
    def model(self) -> LoadedModel:
        return self._model

    def encode(self, texts: Sequence[str]) -> FloatMatrix:
        """One unit-norm row per text, in input order."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        for run in self._model.tokenizer.runs(texts, self.max_batch, self.max_tokens):
            out[run.indices] = self._model.session.run(run.feeds(self._model.session.input_names))
        return out
