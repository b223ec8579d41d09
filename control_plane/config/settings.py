"""Settings: one YAML file validated into typed models at start-up.

Layers, later wins: the packaged defaults.yaml, the file named by ``--config`` or ``BIOHYBRID_CONFIG``,
then environment variables ``BIOHYBRID__SECTION__KEY=value`` (values parsed as YAML scalars). A bad
value stops start-up with a ConfigError naming the dotted key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from control_plane.config.tenancy import tenant_name_problem
from control_plane.errors import BiohybridError
from control_plane.locations import CONFIG_DIR

DEFAULTS_FILE = CONFIG_DIR / "defaults.yaml"
LOCAL_FILE = CONFIG_DIR / "local.yaml"
ENV_CONFIG_FILE = "BIOHYBRID_CONFIG"
ENV_PREFIX = "BIOHYBRID__"
COMPONENTS: tuple[str, ...] = ("bm25", "splade", "dense")
WEIGHT_SUM_TOLERANCE = 0.01


def check_weights_sum(weights: list[float]) -> None:
    """Refuse fusion weights that do not sum to 1 ± 0.01 (OpenSearch demands 1.0 for min-max fusion)."""
    total = sum(weights)
    if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
        raise ValueError(
            f"fusion weights must sum to 1 (±{WEIGHT_SUM_TOLERANCE}); got {weights} summing to {total:.4f}"
        )


class ConfigError(BiohybridError, ValueError):
    """A configuration value is missing or invalid; the message names the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OpenSearchSettings(_Strict):
    """Where the cluster is and how the control plane authenticates to it (a secured cluster: TLS and
    HTTP basic auth)."""

    url: str = Field("http://127.0.0.1:9200", description="the node's HTTP address (when urls is empty)")
    urls: list[str] = Field(
        default_factory=list,
        description="every node a client may send to (a cluster: each node's HTTP address); a client spreads "
        "requests over them and moves on from one that stops answering; empty: url alone",
    )
    timeout_s: float = Field(30, gt=0, description="request timeout of the control plane's clients")
    cluster_name: str = Field(
        "biohybrid",
        description="the cluster's name (the Ansible role's); the test fixture refuses to reuse a node of "
        "another cluster",
    )
    username: str = Field(
        "",
        description='the control plane\'s service account on a secured cluster ("": no auth); needs '
        "password_file",
    )
    password_file: str = Field(
        "",
        description="the file holding the service account's password, read when a client is built "
        "(whitespace stripped; relative paths are from the working folder)",
    )
    ca_certs: str = Field(
        "",
        description="PEM bundle of the CA that signed the cluster's certificate (\"\": the client libraries' "
        "default trust store: $SSL_CERT_FILE, or $REQUESTS_CA_BUNDLE for raw HTTP, when set, else "
        "certifi's bundle)",
    )
    verify_certs: bool = Field(
        True, description="check the cluster's certificate (false only for a throwaway node)"
    )

    @field_validator("username", "password_file", "ca_certs", mode="before")
    @classmethod
    def _text(cls, value: object) -> object:
        """An empty ``BIOHYBRID__OPENSEARCH__USERNAME=`` (YAML null) is "", a number its text."""
        if value is None:
            return ""
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @model_validator(mode="after")
    def _security_is_consistent(self) -> OpenSearchSettings:
        if self.username and not self.password_file:
            raise ValueError(
                f"opensearch.username is {self.username!r} but opensearch.password_file is empty: set "
                "password_file to a file holding that account's password (or "
                "BIOHYBRID__OPENSEARCH__PASSWORD_FILE), or clear username for a cluster without auth"
            )
        if self.password_file and not self.username:
            raise ValueError(
                f"opensearch.password_file is {self.password_file!r} but opensearch.username is empty: "
                "set username to the service account the password belongs to (or "
                "BIOHYBRID__OPENSEARCH__USERNAME), or clear password_file for a cluster without auth"
            )
        if self.ca_certs and not self.verify_certs:
            raise ValueError(
                f"opensearch.ca_certs is {self.ca_certs!r} but opensearch.verify_certs is false, so it "
                "would never be used: set verify_certs true (recommended) or clear ca_certs"
            )
        schemes = {self.scheme(host) for host in self.hosts}
        if len(schemes) > 1:
            raise ValueError(
                f"opensearch urls mix http and https ({', '.join(self.hosts)}): give every node "
                "the same scheme (https on a secured cluster)"
            )
        return self

    @property
    def hosts(self) -> list[str]:
        return list(self.urls) or [self.url]

    @property
    def use_ssl(self) -> bool:
        """Whether the nodes are reached over TLS (their URLs are https://)."""
        return all(self.scheme(host) == "https" for host in self.hosts)

    @staticmethod
    def scheme(host: str) -> str:
        return "https" if host.lower().startswith("https://") else "http"


class Bm25Settings(_Strict):
    """The text fields' BM25 similarity (a change needs a re-index)."""

    k1: float = Field(1.2, ge=0, description="term-frequency saturation (Lucene's default)")
    b: float = Field(0.75, ge=0, le=1, description="length normalisation (Lucene's default)")


class KnnSettings(_Strict):
    """The dense field ``embedding``: a k-NN (HNSW) vector."""

    engine: Literal["faiss", "lucene"] = Field(
        "faiss",
        description="faiss needs the k-NN native libraries of the official bundle; a node assembled from "
        "Maven Central lacks them (use lucene there: `biohybrid apply` refuses faiss on such a node)",
    )
    space_type: Literal["innerproduct", "cosinesimil", "l2"] = Field(
        "innerproduct", description="the vector similarity (the models' vectors are L2-normalised)"
    )
    dimension: int = Field(384, gt=0, le=16000, description="the dense model's vector size")
    m: int = Field(16, gt=1, le=512, description="HNSW links per node (index time)")
    ef_construction: int = Field(128, gt=1, description="HNSW candidate list while building (index time)")
    ef_search: int = Field(
        200,
        gt=0,
        description="query-time HNSW candidate list (/v1/search uses max(ef_search, k)); chosen against "
        "exact search: model_artifacts/reports/exact-reference.md",
    )


class SparseIndexSettings(_Strict):
    """How the SPLADE field ``sparse_terms`` is indexed and searched (defaults.yaml says why the default).

    ``rank_features``: exact dot product over Lucene feature postings (the neural_sparse query; the
    optional two-phase processor, ``search.sparse_two_phase``, prunes it). ``seismic``: neural-search's
    ``sparse_vector`` field with SEISMIC approximate search (OpenSearch 3.3+): keys are token ids, not
    word pieces, and a segment with fewer than ``approximate_threshold`` documents is searched exactly.
    The index-time parameters need a re-index to change; ``top_n`` and ``heap_factor`` are per query."""

    method: Literal["rank_features", "seismic"] = Field(
        "rank_features",
        description="rank_features (exact neural_sparse) or seismic (approximate; a SEISMIC index cannot "
        "also hold the k-NN field); chosen on model_artifacts/reports/sparse-index.md",
    )
    n_postings: int | None = Field(
        None,
        gt=0,
        description="seismic, index time: postings kept per token (null: OpenSearch's 0.0005 x the "
        "segment's documents, at least 160)",
    )
    cluster_ratio: float = Field(
        0.1, gt=0, lt=1, description="seismic, index time: clusters per posting list"
    )
    summary_prune_ratio: float = Field(
        0.4, gt=0, le=1, description="seismic, index time: share of a cluster summary's weight kept"
    )
    approximate_threshold: int = Field(
        1_000_000, ge=0, description="seismic, index time: segments with fewer documents are searched exactly"
    )
    top_n: int = Field(
        10, gt=0, le=1000, description="seismic, query time: the query's top_n tokens pick the posting lists"
    )
    heap_factor: float = Field(
        1.0,
        gt=0,
        description="seismic, query time: < 1 skips clusters whose summary cannot beat the heap's worst by "
        "that factor (faster, lower recall)",
    )


class IndexSettings(_Strict):
    """The chunk indices: their names, shards and fields (the index template renders these)."""

    prefix: str = Field(
        "chunks",
        pattern=r"^[a-z0-9][a-z0-9_\-]*$",
        description="chunk indices are <prefix>-*; the template matches that pattern",
    )
    shards: int = Field(1, gt=0, description="primary shards of a new chunk index")
    replicas: int = Field(0, ge=0, description="replicas of a new chunk index (a cluster: 1)")
    tenant_indices: bool = Field(
        False,
        description="tenants separated by index: a tenant ingests into and searches only <prefix>-<tenant> "
        "and <prefix>-<tenant>-<suffix> (control_plane/config/tenancy.py; tenant names then lowercase "
        "letters, digits and _)",
    )
    bm25: Bm25Settings = Bm25Settings()
    knn: KnnSettings = KnnSettings()
    sparse: SparseIndexSettings = SparseIndexSettings()


class FusionWeights(_Strict):
    """Fusion weights in sub-query order, summing to 1 (± 0.01), for min-max or weighted RRF; chosen on
    dev splits: model_artifacts/reports/fusion-grid/."""

    bm25: float = Field(0.20, ge=0, le=1, description="weight of the BM25 sub-query")
    splade: float = Field(0.20, ge=0, le=1, description="weight of the SPLADE sub-query")
    dense: float = Field(0.60, ge=0, le=1, description="weight of the dense (k-NN) sub-query")

    @model_validator(mode="after")
    def _sum_to_one(self) -> FusionWeights:
        check_weights_sum([self.bm25, self.splade, self.dense])
        return self

    def in_order(self) -> list[float]:
        """Weights in hybrid sub-query order (bm25, splade, dense)."""
        return [self.bm25, self.splade, self.dense]


class RrfSettings(_Strict):
    """Reciprocal rank fusion."""

    rank_constant: int = Field(
        60, ge=1, description="RRF's k, the product's constant (the fusion-grid report compares others)"
    )
    weights: FusionWeights | None = Field(
        None,
        description="weighted RRF: each component's reciprocal rank times its weight (OpenSearch 3.1+'s "
        "score-ranker weights); null: classic RRF, every component counted once",
    )


class QueryTypeWeights(_Strict):
    """Weighted-fusion weights per query type (control_plane.clinical.query_types), used by /v1/search
    when a request names no weights; None: the global ``fusion.weights``. Identifiers favour exact
    terms; the other types earned no weights of their own on dev
    (model_artifacts/reports/query-type-weights/dev.md)."""

    exact_term: FusionWeights | None = Field(
        FusionWeights(bm25=0.5, splade=0.1, dense=0.4),
        description="identifiers, gene symbols, queries of 1-3 words",
    )
    paraphrase: FusionWeights | None = Field(None, description="paraphrased questions (null: fusion.weights)")
    complex: FusionWeights | None = Field(
        None, description="long, multi-part questions (null: fusion.weights)"
    )


class FusionSettings(_Strict):
    """How the search pipelines and /v1/search fuse the three sub-queries."""

    weights: FusionWeights = FusionWeights()
    rrf: RrfSettings = RrfSettings()
    weights_by_query_type_enabled: bool = Field(
        True,
        description="/v1/search with weighted fusion and no weights: true gives a query its type's weights "
        "(fusion.weights_by_query_type), false always fusion.weights",
    )
    weights_by_query_type: QueryTypeWeights = QueryTypeWeights()


class ModelsSettings(_Strict):
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
    sparse: str = Field("splade-tiny", description="the SPLADE model")
    rerank: str = Field(
        "ce-minilm",
        description="the project's cross-encoder (model_artifacts/reranker); a dense model's name reranks "
        "by the cosine of its embeddings instead",
    )
    rerank_top_n: int = Field(
        20,
        ge=1,
        le=1000,
        description="the rerank depth: the -rerank pipelines score the first N fused hits; hits below "
        "keep the fused order under them, so nothing is cut",
    )
    rerank_model_weight: float = Field(
        0.2,
        ge=0,
        le=1,
        description="blend of the model's order with the fused one (0: fused order, 1: the model's); "
        "chosen on nfcorpus/dev: model_artifacts/reports/rerank-blend/",
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
    gpu_bound: tuple[Literal["dense", "sparse", "rerank"], ...] = Field(
        (),
        description="roles whose model must run on a GPU: one attempt per call, and a call that meets no "
        "GPU fails as gpu_unavailable (control_plane/resilience)",
    )


class KeyLimits(_Strict):
    """What one API key may ask of the control API at once, so no caller can take what the others need:
    beyond it a request gets 429 with Retry-After."""

    requests_per_s: float = Field(50.0, gt=0, description="sustained requests per second")
    burst: int = Field(100, ge=1, description="requests allowed at once above the sustained rate")
    concurrent: int = Field(
        4, ge=1, description="requests in progress at once (keep it below api.threads, so other keys get one)"
    )
    question_chars_free: int = Field(
        200,
        ge=0,
        description="characters of a question that cost nothing beyond its request: an ordinary question "
        "(the test sets' longest is 77 tokens) never touches the characters bucket",
    )
    question_chars_per_s: float = Field(
        500.0,
        gt=0,
        description="characters past question_chars_free per second, sustained: a question costs the "
        "encoders, BM25 and highlighting by its length (2,000 characters take about 3x an ordinary "
        "question's time), so a key sending long ones is slowed before it takes the cores every key shares",
    )
    question_chars_burst: int = Field(
        2000,
        ge=1,
        description="characters past question_chars_free allowed at once above the sustained rate (a "
        "question costing more waits for a full bucket)",
    )


class ApiKey(_Strict):
    """An API key, stored as its SHA-256 (the key itself never sits in configuration or logs)."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="the key's SHA-256, hex")
    tenant: str = Field(
        pattern=r"^[A-Za-z0-9_\-]+$", description="the tenant every request with this key is confined to"
    )
    role: Literal["search", "admin"] = Field(
        "search", description="search, or admin for /v1/admin/* and /v1/evaluate"
    )
    name: str = Field("", description="a label for logs (never the key)")
    limits: KeyLimits | None = Field(None, description="this key's limits (default: api.key_limits)")


class SectionRoutingSettings(_Strict):
    """Clinical routing inside the records the query is about (control_plane/clinical/routing.py)."""

    weight: float = Field(4.0, ge=0, description="lift per unit of (boost factor - 1) at full topicality")
    min_topicality: float = Field(0.8, ge=0, le=1, description="documents scoring less are not routed")
    max_documents: int = Field(3, ge=1, le=100, description="route within at most this many documents")
    depth: int = Field(50, ge=1, le=1000, description="fused chunks routing looks at")
    fetch_sections: bool = Field(True, description="fetch routed sections the fused list missed")
    pipeline_window: int = Field(
        50,
        ge=1,
        le=1000,
        description="fused chunks the clinical search pipelines route over (at least depth: a pipeline "
        "cannot fetch the sections fusion missed, so it routes over a wider window instead)",
    )


class CacheStoreSettings(_Strict):
    """One in-memory cache: on or off, its size bound and how long an entry lives."""

    enabled: bool = Field(description="whether this cache is used")
    max_entries: int = Field(gt=0, le=1_000_000, description="entries kept (least recently used dropped)")
    ttl_s: float = Field(gt=0, description="seconds an entry lives")


class QueryCacheSettings(_Strict):
    """The API's query cache (control_plane/search/query_cache/)."""

    encoding: CacheStoreSettings = CacheStoreSettings(enabled=True, max_entries=4096, ttl_s=3600)
    response: CacheStoreSettings = CacheStoreSettings(enabled=False, max_entries=512, ttl_s=300)
    models_refresh_s: float = Field(
        60,
        gt=0,
        description="how often the served models' digests are read again from the inference service "
        "(GET /v1/models)",
    )


class FacetSettings(_Strict):
    """Structured facts at query time (control_plane/clinical/facet_boost.py)."""

    intent_boost: float = Field(
        2.0,
        ge=1.0,
        le=10.0,
        description="facet_json's BM25 weight is multiplied by this when a clinical intent is detected "
        "(boosts on); 1.0 turns the boost off",
    )
    boost_granularities: tuple[Literal["chunk", "document", "facet"], ...] = Field(
        ("facet",), description="the granularities whose searches get the boost"
    )


class SparseTwoPhaseSettings(_Strict):
    """neural-search's ``neural_sparse_two_phase_processor`` (a search request processor): the query's
    tokens above ``prune_ratio`` x its largest weight score every document, the rest only rescore the
    top ``size`` x ``expansion_rate`` hits (at most ``max_window_size``). It rewrites a top-level (or
    bool should) neural_sparse query on a ``rank_features`` field; OpenSearch refuses it on SEISMIC
    fields, and leaves a neural_sparse inside a hybrid query untouched."""

    enabled: bool = Field(False, description="add the processor to every search pipeline")
    prune_ratio: float = Field(
        0.4, ge=0, le=1, description="tokens below this x the largest weight only rescore the top hits"
    )
    expansion_rate: float = Field(5.0, ge=1.0, description="the rescored window is size x this")
    max_window_size: int = Field(10_000, ge=50, description="the rescored window's upper bound")


class SearchSettings(_Strict):
    """The /v1/search behaviour: where it looks, its budgets and defaults."""

    index_pattern: str = Field(
        "chunks-*",
        description="the indices /v1/search reads (with index.tenant_indices on, the tenant's own instead)",
    )
    candidate_depth: int = Field(
        100,
        ge=1,
        le=1000,
        description="hits each component contributes before fusion (pagination_depth and k-NN k); pages "
        "are cut from one fused list",
    )
    component_timeout_ms: int = Field(
        300, gt=0, description="a component whose query encoding misses it is dropped (dense_timeout)"
    )
    rerank_timeout_ms: int = Field(
        1500, gt=0, description="a reranked request that takes longer is answered without rerank"
    )
    opensearch_timeout_ms: int = Field(5000, gt=0, description="the search request's budget in OpenSearch")
    rerank_requires_gpu: bool = Field(
        False, description="refuse a rerank on a service without a GPU (reranker_error gpu_unavailable)"
    )
    breaker_failures: int = Field(
        5,
        ge=0,
        description="query encoding's breaker per model: after this many consecutive failed calls (0: "
        "never) the component fails fast (dense_circuit_open)",
    )
    breaker_reset_s: float = Field(
        30, gt=0, description="seconds an open breaker waits before one probe call"
    )
    intents_file: str = Field(
        "intents.yaml",
        description="clinical intent phrase lists and boost factors (relative to control_plane/config/)",
    )
    section_routing: SectionRoutingSettings = SectionRoutingSettings()
    facets: FacetSettings = FacetSettings()
    cache: QueryCacheSettings = QueryCacheSettings()
    sparse_two_phase: SparseTwoPhaseSettings = SparseTwoPhaseSettings()


class IngestSettings(_Strict):
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


class ApiSettings(_Strict):
    """The control API (python -m control_plane.api, `biohybrid api start`)."""

    host: str = Field("127.0.0.1", description="bind address")
    port: int = Field(8600, ge=1, le=65535, description="port")
    threads: int = Field(
        8,
        ge=1,
        le=256,
        description="request threads of the production server (waitress): each mostly waits on encoders "
        "and OpenSearch",
    )
    keys: tuple[ApiKey, ...] = Field(
        (), description="the API keys, as SHA-256 hashes (none: every request gets 401)"
    )
    key_limits: KeyLimits = Field(
        default_factory=KeyLimits,
        description="each key's request rate and concurrency, unless it sets its own",
    )
    job_grace_s: float = Field(
        10.0,
        ge=0,
        description="on SIGTERM, how long running jobs may take to end before they are recorded as "
        "interrupted; keep it below the service manager's stop timeout (systemd: 90 s) less events.drain_s",
    )


class LedgerSettings(_Strict):
    """The job ledger (control_plane/ledger/): the index holding one document per ingest, model
    registration and evaluation job."""

    index: str = Field("jobs", pattern=r"^[a-z0-9][a-z0-9_\-]*$", description="the index of the job records")


class EventsSettings(_Strict):
    """Lifecycle CloudEvents (control_plane/events/): off by default; where they go and how many searches
    emit one."""

    enabled: bool = Field(False, description="emit at all")
    sink: Literal["http", "jsonl"] = Field(
        "http",
        description="http: structured-mode POST (application/cloudevents+json) to url; jsonl: one event per "
        "line appended to path",
    )
    url: str = Field("", description="the receiver (required with sink http)")
    path: str = Field(
        ".local/events.jsonl", description="the file of the jsonl sink (relative to the working folder)"
    )
    search_sample_rate: float = Field(
        0.1,
        ge=0,
        le=1,
        description="share of searches that emit retrieval.completed (1: all); ingest and job events "
        "always go",
    )
    timeout_s: float = Field(2.0, gt=0, description="the HTTP POST timeout")
    queue_size: int = Field(
        1000,
        ge=1,
        le=1_000_000,
        description="events waiting for the HTTP sender thread: a search only enqueues, so a slow receiver "
        "never slows it; a full queue drops the event (counted)",
    )
    drain_s: float = Field(
        30.0,
        gt=0,
        description="seconds a stopping process (SIGTERM) waits for the http sink to send what it queued",
    )
    include_query: bool = Field(
        False, description="put the query text in retrieval.completed (queries may hold patient details)"
    )

    @field_validator("url", "path", mode="before")
    @classmethod
    def _text(cls, value: object) -> object:
        return "" if value is None else value

    @model_validator(mode="after")
    def _sink_has_a_target(self) -> EventsSettings:
        if self.enabled and self.sink == "http" and not self.url.startswith(("http://", "https://")):
            raise ValueError(
                f"events.sink is http but events.url is {self.url!r}: set url to the receiver's http(s):// "
                "address (or BIOHYBRID__EVENTS__URL), or choose sink jsonl with a path"
            )
        if self.enabled and self.sink == "jsonl" and not self.path:
            raise ValueError("events.sink is jsonl but events.path is empty: name the file to append to")
        return self


class Settings(_Strict):
    """Every setting of the control plane, the API and the inference service's clients."""

    opensearch: OpenSearchSettings = OpenSearchSettings()
    index: IndexSettings = IndexSettings()
    fusion: FusionSettings = FusionSettings()
    models: ModelsSettings = ModelsSettings()
    search: SearchSettings = SearchSettings()
    ingest: IngestSettings = IngestSettings()
    api: ApiSettings = ApiSettings()
    ledger: LedgerSettings = LedgerSettings()
    events: EventsSettings = EventsSettings()

    @model_validator(mode="after")
    def _tenants_can_name_indices(self) -> Settings:
        if self.index.tenant_indices:
            problems = sorted({p for key in self.api.keys if (p := tenant_name_problem(key.tenant))})
            if problems:
                raise ValueError(f"api.keys: {'; '.join(problems)}")
        return self

    @model_validator(mode="after")
    def _two_phase_needs_rank_features(self) -> Settings:
        if self.search.sparse_two_phase.enabled and self.index.sparse.method == "seismic":
            raise ValueError(
                "search.sparse_two_phase.enabled: OpenSearch refuses the two-phase processor on a SEISMIC "
                "sparse_vector field; turn it off or set index.sparse.method: rank_features"
            )
        return self


def load_settings(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Load defaults, then the given (or $BIOHYBRID_CONFIG) file, then BIOHYBRID__* variables."""
    env = os.environ if environ is None else environ
    data = read_yaml_mapping(DEFAULTS_FILE)
    chosen = path if path is not None else env.get(ENV_CONFIG_FILE)
    if chosen:
        merge_settings(data, read_yaml_mapping(Path(chosen)))
    merge_settings(data, env_overrides(env))
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration: {describe_errors(exc)}") from None


def describe_errors(exc: ValidationError) -> str:
    """A validation error as ``dotted.key: problem; ...`` (what every settings file's errors say)."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()
    )


def read_yaml_mapping(path: Path, what: str = "configuration file") -> dict[str, Any]:
    """A YAML file that must hold a mapping; ConfigError naming the file otherwise."""
    if not path.is_file():
        raise ConfigError(f"{what} not found: {path}")
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path} is not valid YAML: {exc}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"{what} {path} must hold a mapping at the top level")
    return loaded


def env_overrides(env: Mapping[str, str], prefix: str = ENV_PREFIX) -> dict[str, Any]:
    """``PREFIXSECTION__KEY=value`` variables as a nested mapping (values parsed as YAML scalars)."""
    overrides: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith(prefix):
            continue
        keys = [part.lower() for part in name[len(prefix) :].split("__") if part]
        node = overrides
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = yaml.safe_load(raw)
    return overrides


def merge_settings(base: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Merge ``extra`` into ``base`` in place, mappings key by key, anything else replaced."""
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            merge_settings(base[key], value)
        else:
            base[key] = value
