"""Settings of the inference service, with defaults sized for one 2-core machine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from control_plane.inference.callers import DEFAULT_RATES, CallerRate
from control_plane.models.runtime import Device

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501


@dataclass(frozen=True)
class ServiceConfig:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    dense_models: tuple[str, ...] = ("bge-small-bio", "bge-small", "minilm")
    """Served on /v1/embeddings/<name> (and on /v1/rerank/<name> as cosine similarity, for A/B runs)."""
    sparse_models: tuple[str, ...] = ("splade-tiny", "splade-tiny-bio")
    """Served on /v1/sparse/<name>: the default and the model fine-tuned from it, for A/B runs and for
    indices encoded with either (``biohybrid reencode`` moves an index between them)."""
    rerank_models: tuple[str, ...] = ("ce-minilm", "ce-bge-small", "ce-bge-small-distil")
    """Cross-encoders served on /v1/rerank/<name> (a dense model's name there still gives its cosine): the
    one trained from MiniLM and the two trained from bge-small, with and without the fused ensemble as
    teacher (``models.rerank`` picks)."""
    max_batch: int = 32
    """Texts per model call, merged across concurrent requests."""
    max_wait_ms: float = 5.0
    """How long a worker waits for more requests to fill a batch (only when others are already queued)."""
    queue_size: int = 128
    """Requests waiting per model; beyond it a request gets 503 at once. At least ``http_threads`` by
    default: each queued request holds a request thread, so under the threads' bound a burst waits in the
    queue (within ``request_timeout_s``) instead of being refused."""
    max_items: int = 256
    """Texts per request (documents per rerank request; ml_opensearch reranks the top 100 by default)."""
    max_chars: int = 20_000
    """Characters per text (a chunk is ≤ 256 tokens; the model truncates at its max length anyway)."""
    max_query_tokens: int = 128
    """Tokens of a query (``input_type: query``) a model reads: the rest is cut before encoding, so one
    caller's long question costs what a normal one does (a document is read to the model's max length)."""
    request_timeout_s: float = 30.0
    """A request still waiting for its batch after this long gets 503 instead of hanging: the bounded wait
    of a burst (ml-commons gives up sooner, at its connector's read timeout, and the service then sheds
    the work of the caller that left)."""
    sparse_top_k: int | None = None
    """Terms kept per text (None: the manifest's value)."""
    sparse_min_weight: float | None = None
    """Smallest weight kept (None: the manifest's value)."""
    device: Device = "auto"
    threads: int = 0
    """onnxruntime intra-op threads per session (0: onnxruntime's default, one per core)."""
    manifest: Path | None = None
    http_threads: int = 128
    """Request threads of the HTTP server. A thread only validates and waits on a model queue (the models
    run in their own worker threads), so they are cheap and many: a burst of searches waits in the model
    queues instead of being refused at the door."""
    caller_share: float = 0.75
    """The share of ``http_threads`` one caller (X-Biohybrid-Caller: api, ingest, opensearch) may hold in
    progress, so a flood from one leaves threads for the others (inference/callers.py): 96 of 128, at
    least what OpenSearch's connectors can open together (``mlcommons/registry.py``
    ``CONNECTOR_MAX_CONNECTIONS`` each: past it ml-commons queues the call itself), and far above the
    control API's most (its 8 threads, each encoding dense and sparse at once)."""
    caller_token_file: Path | None = None
    """The caller token the project's callers prove their name with (None: control_plane/serving.py's
    ``caller_token_file()``, .local/caller-token; made on first use): a request naming ``api``, ``ingest``
    or ``opensearch`` without it is counted as ``other``."""
    caller_rates: Mapping[str, CallerRate] = field(default_factory=lambda: dict(DEFAULT_RATES))
    """Requests per second (and burst) per caller; a caller not named here has no rate, only its share of
    the threads (inference/callers.py ``DEFAULT_RATES``: ``unnamed`` and ``other``)."""
    debug: bool = False
    """Serve on werkzeug's development server instead of waitress."""
    fault_injection: bool = False
    """Serve ``/admin/faults`` (control_plane/inference/faults.py): tests make the next N model calls fail."""
    intents_file: Path | None = None
    """The clinical intents the pipelines' clinical models read (None: the packaged config/intents.yaml,
    the file /v1/search reads by default; a deployment that changes search.intents_file passes it)."""

    def __post_init__(self) -> None:
        positive = ("max_batch", "queue_size", "max_items", "max_chars", "max_query_tokens", "http_threads")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be ≥ 1, got {getattr(self, name)}")
        if not 0 < self.caller_share <= 1:
            raise ValueError(f"caller_share must be in (0, 1], got {self.caller_share}")
        if self.max_wait_ms < 0 or self.request_timeout_s <= 0:
            raise ValueError("max_wait_ms must be ≥ 0 and request_timeout_s > 0")
        if not self.dense_models and not self.sparse_models and not self.rerank_models:
            raise ValueError("serve at least one dense, sparse or rerank model")
