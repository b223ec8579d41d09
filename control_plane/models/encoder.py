"""What the three served model classes share: a manifest model of one role, loaded and verified, and the
limits of one ONNX call (texts per call, padded tokens per call)."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from control_plane.models.loading import LoadedModel, load_model
from control_plane.models.manifest import Manifest, Role
from control_plane.models.runtime import Device

DEFAULT_MAX_TOKENS = 16384


class ModelEncoder:
    """Base of DenseEncoder, SparseEncoder and CrossEncoderScorer; ``role`` is the manifest role served."""

    role: ClassVar[Role]

    def __init__(
        self, model: LoadedModel, *, max_batch: int = 32, max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
        if model.spec.role != self.role:
            raise ValueError(
                f"model '{model.spec.name}' is a {model.spec.role} model, not a {self.role} model"
            )
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
        **options: Any,
    ) -> Self:
        """``name`` (default: the manifest's default model of this role), verified against the manifest;
        ``options`` go to the class (max_batch, and the sparse cut for SparseEncoder)."""
        model = load_model(name, cls.role, manifest=manifest, variant=variant, device=device, threads=threads)
        return cls(model, **options)

    @property
    def name(self) -> str:
        return self._model.spec.name

    @property
    def model(self) -> LoadedModel:
        return self._model

    @property
    def texts_per_call(self) -> int:
        """Texts (or pairs) per ONNX call: max_batch, or 1 for a model whose output depends on its batch."""
        return self._model.spec.texts_per_call(self.max_batch)
