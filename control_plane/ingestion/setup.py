"""The Python encoding path's parts, built from settings (shared by the CLI and the admin API)."""

from __future__ import annotations

from control_plane.config.settings import Settings
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder


def python_encoder(settings: Settings) -> tuple[ModelChunkEncoder, HuggingFaceTokenCounter]:
    """The dense and sparse ONNX encoders of the configured models, and the dense tokenizer's counter
    (token budgets are measured with the dense model's tokenizer)."""
    dense = DenseEncoder.load(settings.models.dense)
    counter = HuggingFaceTokenCounter.from_file(dense.model.files.tokenizer)
    return ModelChunkEncoder(dense, SparseEncoder.load(settings.models.sparse)), counter
