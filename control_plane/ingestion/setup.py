"""The Python encoding path's parts, built from settings (shared by the CLI and the admin API)."""

from __future__ import annotations

from pathlib import Path

from control_plane.config.settings import Settings
from control_plane.ingestion.encode import DenseModel, ModelChunkEncoder, SparseModel
from control_plane.ingestion.encoding_cache import cached_models, model_key
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder


def python_encoder(settings: Settings) -> tuple[ModelChunkEncoder, HuggingFaceTokenCounter]:
    """The dense and sparse ONNX encoders of the configured models (behind the encoding cache when
    ``models.encoding_cache_dir`` is set), and the dense tokenizer's counter (token budgets are
    measured with the dense model's tokenizer)."""
    dense_encoder = DenseEncoder.load(settings.models.dense)
    sparse_encoder = SparseEncoder.load(settings.models.sparse)
    counter = HuggingFaceTokenCounter.from_file(dense_encoder.model.files.tokenizer)
    dense: DenseModel = dense_encoder
    sparse: SparseModel = sparse_encoder
    if settings.models.encoding_cache_dir:
        dense, sparse, _ = cached_models(
            dense_encoder,
            model_key(dense_encoder.model),
            sparse_encoder,
            model_key(sparse_encoder.model, top_k=sparse_encoder.top_k, min_weight=sparse_encoder.min_weight),
            Path(settings.models.encoding_cache_dir),
        )
    return ModelChunkEncoder(dense, sparse), counter
