"""The Python encoding path's parts, built from settings (shared by the CLI and the admin API)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from control_plane.config.settings import Settings
from control_plane.ingestion.encode import DenseModel, ModelChunkEncoder, SparseModel
from control_plane.ingestion.encoding_cache import EncodingCache, cached_models
from control_plane.ingestion.encoding_seed import EncodingTally, ModelIdentity, seeded_models
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


@dataclass(frozen=True)
class LocalModels:
    """The configured dense and sparse models in this process (ONNX), each behind its breaker and the
    failure policy, with what identifies their outputs and the dense tokenizer's counter."""

    dense: DenseModel
    sparse: SparseModel
    identities: Mapping[str, ModelIdentity]
    counter: HuggingFaceTokenCounter


def local_models(settings: Settings, breakers: BreakerBoard | None = None) -> LocalModels:
    """The configured models loaded here, without the encoding cache or seed (what both wrap, and what
    ``biohybrid encode-seed`` encodes with)."""
    board = breakers or ingest_breakers(settings)
    dense_encoder = DenseEncoder.load(settings.models.dense)
    sparse_encoder = SparseEncoder.load(settings.models.sparse)
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
    sparse_options = {"top_k": sparse_encoder.top_k, "min_weight": sparse_encoder.min_weight}
    identities = {
        "dense": ModelIdentity.of(dense_encoder.model),
        "sparse": ModelIdentity.of(sparse_encoder.model, **sparse_options),
    }
    counter = HuggingFaceTokenCounter.from_file(dense_encoder.model.files.tokenizer)
    return LocalModels(dense, sparse, identities, counter)


def python_encoder(
    settings: Settings, breakers: BreakerBoard | None = None, tally: EncodingTally | None = None
) -> tuple[ModelChunkEncoder, HuggingFaceTokenCounter]:
    """The dense and sparse encoders of the configured models, each behind its breaker and the failure
    policy (guard.py): ONNX in this process (behind the encoding cache when ``models.encoding_cache_dir``
    is set, and above it the encoding seed when ``models.encoding_seed`` names one) or, with
    ``ingest.encoder: service``, the inference service; and the dense tokenizer's counter (token budgets
    are measured with the dense model's tokenizer). ``tally`` hears where each encoding came from (the
    seed, the cache, the models)."""
    board = breakers or ingest_breakers(settings)
    if settings.ingest.encoder == "service":
        return _service_encoder(settings, board)
    models = local_models(settings, board)
    dense, sparse = models.dense, models.sparse
    cache: EncodingCache | None = None
    if settings.models.encoding_cache_dir:
        dense, sparse, cache = cached_models(
            dense,
            models.identities["dense"].key,
            sparse,
            models.identities["sparse"].key,
            Path(settings.models.encoding_cache_dir),
        )
    if settings.models.encoding_seed or tally is not None:
        tally = tally if tally is not None else EncodingTally()
        tally.cache = cache
        seed = Path(settings.models.encoding_seed) if settings.models.encoding_seed else None
        dense, sparse = seeded_models(dense, sparse, seed, models.identities, tally)
    return ModelChunkEncoder(dense, sparse, sparse_token_ids=_token_ids(settings)), models.counter


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
