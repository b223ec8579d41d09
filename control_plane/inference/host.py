"""The served models: loaded (in the background for the server), each behind its own batching queue.

Readiness is per model: /ready answers 200 only when every configured model loaded; a model that failed
to load (missing artifact, digest mismatch) is reported with its error instead of crashing the service.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from control_plane.errors import ClientError, UnavailableError
from control_plane.inference.batching import MicroBatcher
from control_plane.inference.config import ServiceConfig
from control_plane.inference.metrics import ServiceMetrics
from control_plane.models.cross_encoder import CrossEncoderScorer, Pair
from control_plane.models.dense import DenseEncoder, with_query_prefix
from control_plane.models.digest import model_digest, text_processing
from control_plane.models.manifest import Manifest, ModelSpec, load_manifest
from control_plane.models.runtime import OnnxModel
from control_plane.models.similarity import SimilarityScorer
from control_plane.models.sparse import SparseEncoder
from control_plane.models.tokenization import cut_to_tokens
from control_plane.resilience.policy import GPU_PROVIDER

log = logging.getLogger(__name__)
Status = Literal["loading", "ready", "failed"]
Vector = npt.NDArray[np.float32]
T = TypeVar("T")
R = TypeVar("R")
# Items per model call for models that run one item per ONNX call anyway (batch_invariant: false):
# calling them in small chunks costs nothing and lets an abandoned request be dropped within ~0.1 s.
SHED_CHUNK = 4


def _shed_chunk(spec: ModelSpec) -> int | None:
    """Items per batcher call: small for one-item-per-call models (free, and sheds sooner), else a batch."""
    return None if spec.batch_invariant else SHED_CHUNK


class ModelUnavailableError(UnavailableError, RuntimeError):
    """The model is served here but not loaded (yet, or at all)."""


class UnknownModelError(ClientError, LookupError):
    """The model is not served here."""


@dataclass
class ModelState:
    name: str
    role: str
    status: Status = "loading"
    error: str | None = None
    providers: tuple[str, ...] = ()
    dimension: int | None = None
    # What the control API keys its query-encoding cache by (control_plane/search/query_cache/).
    digest: str | None = None
    tokenizer: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, object]:
        return {k: v for k, v in vars(self).items() if v not in (None, ())}


class BatchedEncoder:
    """A DenseEncoder seen through its batching queue, so similarity requests share batches too."""

    def __init__(
        self, batcher: MicroBatcher[str, Vector], timeout_s: float, gone: Callable[[], bool] | None = None
    ) -> None:
        self._batcher = batcher
        self._timeout_s = timeout_s
        self._gone = gone

    def encode(self, texts: Sequence[str]) -> Vector:
        return np.stack(self._batcher.submit(list(texts), self._timeout_s, self._gone))


class BatchedCrossEncoder:
    """A CrossEncoderScorer seen through its batching queue: one score per document, in order."""

    def __init__(
        self,
        batcher: MicroBatcher[Pair, float],
        timeout_s: float,
        name: str,
        gone: Callable[[], bool] | None = None,
    ) -> None:
        self._batcher = batcher
        self._timeout_s = timeout_s
        self.name = name
        self._gone = gone

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        return self._batcher.submit([(query, d) for d in documents], self._timeout_s, self._gone)


class Scorer(Protocol):
    def score(self, query: str, documents: Sequence[str]) -> list[float]: ...


class ModelHost:
    def __init__(self, config: ServiceConfig, metrics: ServiceMetrics) -> None:
        self.config = config
        self.metrics = metrics
        self.states: dict[str, ModelState] = {}
        for name in config.dense_models:
            self.states[name] = ModelState(name, "dense")
        for name in config.sparse_models:
            self.states[name] = ModelState(name, "sparse")
        for name in config.rerank_models:
            self.states[name] = ModelState(name, "rerank")
        metrics.expect_models({name: state.role for name, state in self.states.items()})
        self._dense: dict[str, MicroBatcher[str, Vector]] = {}
        self._query_prefix: dict[str, str] = {}
        self._tokenizers: dict[str, Tokenizer] = {}
        self._sparse: dict[str, MicroBatcher[str, dict[str, float]]] = {}
        self._rerank: dict[str, MicroBatcher[Pair, float]] = {}
        self._lock = threading.Lock()

    @property
    def ready(self) -> bool:
        return all(state.status == "ready" for state in self.states.values())

    def load(self) -> None:
        """Load every configured model; failures are recorded, not raised."""
        manifest = load_manifest(self.config.manifest)
        for state in self.states.values():
            started = time.perf_counter()
            try:
                self._load_one(manifest, state)
            except Exception as exc:  # reported on /ready and in the log, the other models still serve
                state.status, state.error = "failed", str(exc)
                log.error("model failed to load", extra={"model": state.name, "error": str(exc)})
                continue
            log.info(
                "model ready",
                extra={
                    "model": state.name,
                    "providers": state.providers,
                    "load_s": round(time.perf_counter() - started, 2),
                },
            )
        if not self.metrics.gpu_enabled:
            log.info("no model runs on a GPU: GPU metrics (memory, utilisation, model time) not exported")

    def start_loading(self) -> threading.Thread:
        thread = threading.Thread(target=self.load, name="model-loader", daemon=True)
        thread.start()
        return thread

    def _load_one(self, manifest: Manifest, state: ModelState) -> None:
        cfg = self.config
        session: OnnxModel
        if state.role == "dense":
            dense = DenseEncoder.load(
                state.name, manifest=manifest, device=cfg.device, threads=cfg.threads, max_batch=cfg.max_batch
            )
            session, state.dimension = dense.model.session, dense.dimension
            state.digest = model_digest(dense.model, query_prefix=dense.query_prefix)
            state.tokenizer = text_processing(dense.model)
            batcher: MicroBatcher[str, Vector] = self._batcher(
                state.name,
                lambda texts: list(dense.encode(texts)),
                chunk=_shed_chunk(dense.model.spec),
            )
            with self._lock:
                self._dense[state.name] = batcher
                self._query_prefix[state.name] = dense.query_prefix
                self._tokenizers[state.name] = dense.model.tokenizer.tokenizer
        elif state.role == "rerank":
            scorer = CrossEncoderScorer.load(
                state.name, manifest=manifest, device=cfg.device, threads=cfg.threads, max_batch=cfg.max_batch
            )
            session, state.dimension = scorer.model.session, 1
            state.digest, state.tokenizer = model_digest(scorer.model), text_processing(scorer.model)
            rerank_batcher: MicroBatcher[Pair, float] = self._batcher(
                state.name,
                lambda pairs: [float(s) for s in scorer.score_pairs(pairs)],
                chunk=_shed_chunk(scorer.model.spec),
            )
            with self._lock:
                self._rerank[state.name] = rerank_batcher
        else:
            sparse = SparseEncoder.load(
                state.name,
                manifest=manifest,
                device=cfg.device,
                threads=cfg.threads,
                max_batch=cfg.max_batch,
                top_k=cfg.sparse_top_k,
                min_weight=cfg.sparse_min_weight,
            )
            session, state.dimension = sparse.model.session, sparse.model.spec.dimension
            state.digest = model_digest(sparse.model, top_k=sparse.top_k, min_weight=sparse.min_weight)
            state.tokenizer = text_processing(sparse.model)
            sparse_batcher = self._batcher(state.name, sparse.encode)
            with self._lock:
                self._sparse[state.name] = sparse_batcher
                self._tokenizers[state.name] = sparse.model.tokenizer.tokenizer
        state.providers = tuple(session.providers)
        if session.on_gpu:
            self.metrics.enable_gpu(state.name)
        self.metrics.model_ready.labels(state.name, state.providers[0]).set(1)
        state.status = "ready"

    def _batcher(
        self, name: str, fn: Callable[[list[T]], Sequence[R]], chunk: int | None = None
    ) -> MicroBatcher[T, R]:
        batcher = MicroBatcher(
            name,
            fn,
            chunk=chunk,
            max_batch=self.config.max_batch,
            max_wait_s=self.config.max_wait_ms / 1000,
            queue_size=self.config.queue_size,
            observer=self.metrics,
        )
        self.metrics.track_queue(name, lambda: batcher.depth)
        return batcher

    def _state(self, name: str, role: str) -> ModelState:
        state = self.states.get(name)
        if state is None or state.role != role:
            served = ", ".join(n for n, s in self.states.items() if s.role == role) or "none"
            raise UnknownModelError(f"no {role} model '{name}' is served here (served: {served})")
        if state.status != "ready":
            detail = f": {state.error}" if state.error else ""
            raise ModelUnavailableError(f"model '{name}' is {state.status}{detail}")
        return state

    def embed(
        self, name: str, texts: list[str], *, as_query: bool = False, gone: Callable[[], bool] | None = None
    ) -> list[Vector]:
        """Document vectors, or query vectors (cut to ``max_query_tokens``, the model's query prefix
        added) when ``as_query``. ``gone``: whether the caller has left (its work is then shed)."""
        self._state(name, "dense")
        if as_query:
            texts = with_query_prefix(self._queries(name, texts), self._query_prefix[name])
        return self._dense[name].submit(texts, self.config.request_timeout_s, gone)

    def sparse(
        self, name: str, texts: list[str], *, as_query: bool = False, gone: Callable[[], bool] | None = None
    ) -> list[dict[str, float]]:
        """Term weights of documents, or of queries (cut to ``max_query_tokens``) when ``as_query``."""
        self._state(name, "sparse")
        if as_query:
            texts = self._queries(name, texts)
        return self._sparse[name].submit(texts, self.config.request_timeout_s, gone)

    def _queries(self, name: str, texts: list[str]) -> list[str]:
        tokenizer = self._tokenizers[name]
        cut = [cut_to_tokens(tokenizer, text, self.config.max_query_tokens) for text in texts]
        shortened = sum(len(after) < len(before) for before, after in zip(texts, cut, strict=True))
        if shortened:
            self.metrics.queries_cut.labels(name).inc(shortened)
        return cut

    def similarity(
        self, name: str, gone: Callable[[], bool] | None = None, timeout_s: float | None = None
    ) -> SimilarityScorer:
        self._state(name, "dense")
        encoder = BatchedEncoder(self._dense[name], timeout_s or self.config.request_timeout_s, gone)
        return SimilarityScorer(encoder, name)

    def reranker(
        self, name: str, budget_s: float | None = None, gone: Callable[[], bool] | None = None
    ) -> Scorer:
        """The cross-encoder ``name``; a dense model's name gives its cosine similarity (kept for A/B).
        ``budget_s`` (the caller's, when shorter than the service's timeout) bounds the wait; ``gone``
        says whether the caller has left."""
        state = self.states.get(name)
        timeout_s = min(self.config.request_timeout_s, budget_s or self.config.request_timeout_s)
        if state is not None and state.role == "dense":
            return self.similarity(name, gone, timeout_s)
        self._state(name, "rerank")
        return BatchedCrossEncoder(self._rerank[name], timeout_s, name, gone)

    def check_reranker(self, name: str) -> None:
        """Raise as ``reranker`` would for ``name``: UnknownModelError when it serves no rerank (nor dense)
        model of that name, ModelUnavailableError when that model is not loaded."""
        state = self.states.get(name)
        self._state(name, "dense" if state is not None and state.role == "dense" else "rerank")

    def on_gpu(self, name: str) -> bool:
        """Whether the served model ``name`` runs on a GPU (False when it is not loaded or not served)."""
        state = self.states.get(name)
        return state is not None and GPU_PROVIDER in state.providers

    def stall(self, name: str, seconds: float) -> None:
        """Make the model ``name`` slow for real (the fault switch): its worker sleeps ``seconds`` before
        its next batch, as a slow model would (batching.py ``MicroBatcher.stall``)."""
        batcher = self._rerank.get(name) or self._dense.get(name) or self._sparse.get(name)
        if batcher is not None:
            batcher.stall(seconds)

    def stop(self) -> None:
        for dense in self._dense.values():
            dense.stop()
        for sparse in self._sparse.values():
            sparse.stop()
        for rerank in self._rerank.values():
            rerank.stop()
