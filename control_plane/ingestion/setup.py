"""The Python encoding path's parts, built from settings (shared by the CLI and the admin API)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from control_plane.config.settings import Settings
from control_plane.ingestion.encode import DenseModel, ModelChunkEncoder, SparseModel
from control_plane.ingestion.encoding_cache import cached_models, model_key
from control_plane.ingestion.guard import GuardedModel
from control_plane.ingestion.service_models import ServiceClient, ServiceDenseModel, ServiceSparseModel
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.models.artifacts import verified_artifact
from control_plane.models.dense import DenseEncoder
from control_plane.models.manifest import load_manifest
from control_plane.models.sparse import SparseEncoder, token_id_vocabulary
from control_plane.resilience.breaker import BreakerBoard, BreakerSettings

R = TypeVar("R")


def ingest_breakers(settings: Settings) -> BreakerBoard:
    """The breakers of ingest's model calls (``ingest.breaker_failures``, ``ingest.breaker_reset_s``); one
    board per process that ingests (the control API shares it across its jobs)."""
    return BreakerBoard(BreakerSettings(settings.ingest.breaker_failures, settings.ingest.breaker_reset_s))


def python_encoder(
    settings: Settings, breakers: BreakerBoard | None = None
) -> tuple[ModelChunkEncoder, HuggingFaceTokenCounter]:
    """The dense and sparse encoders of the configured models, each behind its breaker and the failure
    policy (guard.py): ONNX in this process (behind the encoding cache when ``models.encoding_cache_dir``
    is set) or, with ``ingest.encoder: service``, the inference service; and the dense tokenizer's
    counter (token budgets are measured with the dense model's tokenizer)."""
    board = breakers or ingest_breakers(settings)
    if settings.ingest.encoder == "service":
        return _service_encoder(settings, board)
    dense_encoder = DenseEncoder.load(settings.models.dense)
    sparse_encoder = SparseEncoder.load(settings.models.sparse)
    counter = HuggingFaceTokenCounter.from_file(dense_encoder.model.files.tokenizer)
    dense: DenseModel = _guarded(
        settings,
        board,
        "dense",
        dense_encoder.name,
        dense_encoder.encode,
        lambda: dense_encoder.model.session.on_gpu,
    )
    sparse: SparseModel = _guarded(
        settings,
        board,
        "sparse",
        sparse_encoder.name,
        sparse_encoder.encode,
        lambda: sparse_encoder.model.session.on_gpu,
    )
    if settings.models.encoding_cache_dir:
        dense, sparse, _ = cached_models(
            dense,
            model_key(dense_encoder.model),
            sparse,
            model_key(sparse_encoder.model, top_k=sparse_encoder.top_k, min_weight=sparse_encoder.min_weight),
            Path(settings.models.encoding_cache_dir),
        )
    return ModelChunkEncoder(dense, sparse, sparse_token_ids=_token_ids(settings)), counter


def _token_ids(settings: Settings) -> Mapping[str, int] | None:
    """The sparse model's vocabulary ids when chunk indices hold SEISMIC fields (keyed by id), else None."""
    if settings.index.sparse.method != "seismic":
        return None
    return token_id_vocabulary(settings.models.sparse)


def _service_encoder(
    settings: Settings, board: BreakerBoard
) -> tuple[ModelChunkEncoder, HuggingFaceTokenCounter]:
    """Encoders that call the inference service (no encoding cache: the service's files are its own)."""
    client = ServiceClient(settings.models.service_url, settings.ingest.service_timeout_s)
    names = settings.models
    service_dense, service_sparse = (
        ServiceDenseModel(client, names.dense),
        ServiceSparseModel(client, names.sparse),
    )
    dense: DenseModel = _guarded(
        settings, board, "dense", names.dense, service_dense.encode, lambda: client.on_gpu(names.dense)
    )
    sparse: SparseModel = _guarded(
        settings, board, "sparse", names.sparse, service_sparse.encode, lambda: client.on_gpu(names.sparse)
    )
    manifest = load_manifest()
    tokenizer = verified_artifact(manifest, manifest.model(names.dense)).tokenizer
    return (
        ModelChunkEncoder(dense, sparse, sparse_token_ids=_token_ids(settings)),
        HuggingFaceTokenCounter.from_file(tokenizer),
    )


def _guarded(
    settings: Settings,
    board: BreakerBoard,
    role: str,
    name: str,
    encode: Callable[[Sequence[str]], R],
    on_gpu: Callable[[], bool],
) -> GuardedModel[R]:
    return GuardedModel(
        name,
        encode,
        board.get(name),
        gpu_bound=role in settings.models.gpu_bound,
        on_gpu=on_gpu,
        attempts=settings.ingest.encode_attempts,
        backoff_base_s=settings.ingest.encode_backoff_s,
    )
