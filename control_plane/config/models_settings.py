"""Settings ``models`` and ``ingest``: which served models back each role, where the inference service
listens, and how ingest calls the models (locally or through the service, retries, breakers)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from control_plane.config.strict import StrictSettings


class ModelsSettings(StrictSettings):
    """Which served models back each role, and where the inference service listens."""

    service_url: str = Field(
        "http://127.0.0.1:8501",
        pattern=r"^https?://",
        description="the project's inference service; ml-commons reaches it through loopback connectors",
    )
    group: str = Field("biohybrid", description="the ml-commons model group (and name prefix) of the models")
    dense: str = Field(
        "bge-small-bio",
        description="the dense model (control_plane/models/manifest.yaml); an index must be re-encoded "
        "when it changes",
    )
    sparse: str = Field(
        "splade-tiny",
        description="the SPLADE model (control_plane/models/manifest.yaml); an index must be re-encoded "
        "when it changes",
    )
    rerank: str = Field(
        "ce-bge-small-distil",
        description="the project's cross-encoder (model_artifacts/reranker); a dense model's name reranks "
        "by the cosine of its embeddings instead",
    )
    rerank_top_n: int = Field(
        30,
        ge=1,
        le=1000,
        description="the rerank depth: the -rerank pipelines score the first N fused hits; hits below "
        "keep the fused order under them, so nothing is cut",
    )
    rerank_model_weight: float = Field(
        0.4,
        ge=0,
        le=1,
        description="blend of the model's order with the fused one (0: fused order, 1: the model's); "
        "chosen on nfcorpus/dev: model_artifacts/reports/reranker-distil.md",
    )
    sparse_query_mode: Literal["bi-encoder", "doc-only"] = Field(
        "bi-encoder",
        description="bi-encoder: queries go through the SPLADE model; doc-only: a tokenizer + IDF model "
        "inside OpenSearch encodes queries (no inference call)",
    )
    doc_only_idf_index: str = Field("chunks-*", description="the indices doc-only's IDF is computed from")
    deploy_timeout_s: float = Field(60, gt=0, description="how long `models register` waits for a deployment")
    encoding_cache_dir: str = Field(
        "",
        description="folder of the Python ingest path's encoding cache (model digest + text digest -> "
        'vectors), so unchanged text is never encoded twice; "" turns it off (relative to the working '
        "folder)",
    )
    encoding_seed: str = Field(
        "",
        description="an encoding seed file (`biohybrid encode-seed`): encodings of a known corpus, each "
        "served to the Python ingest path only for the model that made it (ONNX sha256 and model key) "
        'and the same chunk text (sha256), the rest encoded; "" turns it off (relative to the working '
        "folder; the local profile names the demo corpus's, datasets/encodings/demo.npz)",
    )
    gpu_bound: tuple[Literal["dense", "sparse", "rerank"], ...] = Field(
        (),
        description="roles whose model must run on a GPU: one attempt per call, and a call that meets no "
        "GPU fails as gpu_unavailable (control_plane/resilience)",
    )


class IngestSettings(StrictSettings):
    """How ingest's Python path encodes, and what it does when a model call fails."""

    encoder: Literal["local", "service"] = Field(
        "local",
        description="local: ONNX in the ingest process (GPU when present, encoding cache); service: the "
        "inference service at models.service_url (one GPU host serves every ingest; no encoding cache)",
    )
    encode_attempts: int = Field(3, ge=1, description="calls per batch for a model that is not GPU-bound")
    encode_backoff_s: float = Field(
        0.5, ge=0, description="wait before a failed batch is tried again, doubling each time"
    )
    breaker_failures: int = Field(
        3,
        ge=0,
        description="failures in a row that open a model's breaker (0: never): calls fail fast with "
        "circuit_open",
    )
    breaker_reset_s: float = Field(30, gt=0, description="seconds an open breaker waits before one probe")
    service_timeout_s: float = Field(60, gt=0, description="timeout of a call to the inference service")
