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
    url: str = "http://127.0.0.1:9200"
    # Every node a client may send to (a cluster: each node's HTTP address). A client spreads requests
    # over them and moves on from one that stops answering; empty: ``url`` alone.
    urls: list[str] = Field(default_factory=list)
    timeout_s: float = Field(30, gt=0)
    cluster_name: str = "biohybrid"
    # A secured cluster (TLS + HTTP basic auth): the control plane's service account ("": no auth) and
    # the file holding its password (read when a client is built, whitespace stripped). Relative paths
    # are from the working folder. ca_certs: the PEM bundle of the CA that signed the cluster's
    # certificate ("": the client libraries' default trust store: $SSL_CERT_FILE or, for raw HTTP,
    # $REQUESTS_CA_BUNDLE when set, else certifi's bundle). verify_certs false skips the certificate
    # check (a throwaway node only).
    username: str = ""
    password_file: str = ""
    ca_certs: str = ""
    verify_certs: bool = True

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
    k1: float = Field(1.2, ge=0)
    b: float = Field(0.75, ge=0, le=1)


class KnnSettings(_Strict):
    engine: Literal["faiss", "lucene"] = "faiss"
    space_type: Literal["innerproduct", "cosinesimil", "l2"] = "innerproduct"
    dimension: int = Field(384, gt=0, le=16000)
    m: int = Field(16, gt=1, le=512)
    ef_construction: int = Field(128, gt=1)
    # Query-time HNSW candidate list (at least k): 100 left k-NN Recall@100 at 0.978 on NFCorpus test
    # against exact search; 200 gives 0.993 (model_artifacts/reports/exact-reference.md).
    ef_search: int = Field(200, gt=0)


class SparseIndexSettings(_Strict):
    """How the SPLADE field ``sparse_terms`` is indexed and searched (defaults.yaml says why the default).

    ``rank_features``: exact dot product over Lucene feature postings (the neural_sparse query; the
    optional two-phase processor, ``search.sparse_two_phase``, prunes it). ``seismic``: neural-search's
    ``sparse_vector`` field with SEISMIC approximate search (OpenSearch 3.3+): keys are token ids, not
    word pieces, and a segment with fewer than ``approximate_threshold`` documents is searched exactly.
    The index-time parameters need a re-index to change; ``top_n`` and ``heap_factor`` are per query."""

    method: Literal["rank_features", "seismic"] = "rank_features"
    # Index time (None: OpenSearch's default, 0.0005 x the segment's documents, at least 160).
    n_postings: int | None = Field(None, gt=0)
    cluster_ratio: float = Field(0.1, gt=0, lt=1)
    summary_prune_ratio: float = Field(0.4, gt=0, le=1)
    approximate_threshold: int = Field(1_000_000, ge=0)
    # Query time: the query's top_n tokens by weight pick the posting lists visited; heap_factor < 1
    # skips clusters whose summary cannot beat the heap's worst by that factor (faster, lower recall).
    top_n: int = Field(10, gt=0, le=1000)
    heap_factor: float = Field(1.0, gt=0)


class IndexSettings(_Strict):
    prefix: str = Field("chunks", pattern=r"^[a-z0-9][a-z0-9_\-]*$")
    shards: int = Field(1, gt=0)
    replicas: int = Field(0, ge=0)
    # Tenants separated by index (control_plane/config/tenancy.py, defaults.yaml): a tenant ingests
    # into and searches only <prefix>-<tenant> and <prefix>-<tenant>-<suffix>.
    tenant_indices: bool = False
    bm25: Bm25Settings = Bm25Settings()
    knn: KnnSettings = KnnSettings()
    sparse: SparseIndexSettings = SparseIndexSettings()


class FusionWeights(_Strict):
    bm25: float = Field(0.20, ge=0, le=1)  # chosen on dev splits: defaults.yaml
    splade: float = Field(0.20, ge=0, le=1)
    dense: float = Field(0.60, ge=0, le=1)

    @model_validator(mode="after")
    def _sum_to_one(self) -> FusionWeights:
        check_weights_sum([self.bm25, self.splade, self.dense])
        return self

    def in_order(self) -> list[float]:
        """Weights in hybrid sub-query order (bm25, splade, dense)."""
        return [self.bm25, self.splade, self.dense]


class RrfSettings(_Strict):
    rank_constant: int = Field(60, ge=1)


class QueryTypeWeights(_Strict):
    """Weighted-fusion weights per query type (control_plane.clinical.query_types), used by /v1/search
    when a request names no weights; None: the global ``fusion.weights``. Identifiers favour exact
    terms; the other types earned no weights of their own on dev
    (model_artifacts/reports/query-type-weights/dev.md)."""

    exact_term: FusionWeights | None = FusionWeights(bm25=0.5, splade=0.1, dense=0.4)
    paraphrase: FusionWeights | None = None
    complex: FusionWeights | None = None


class FusionSettings(_Strict):
    weights: FusionWeights = FusionWeights()
    rrf: RrfSettings = RrfSettings()
    # false: every query gets `weights`; true: the weights of its query type.
    weights_by_query_type_enabled: bool = True
    weights_by_query_type: QueryTypeWeights = QueryTypeWeights()


class ModelsSettings(_Strict):
    """Which served models back each role, and where the inference service listens."""

    service_url: str = Field("http://127.0.0.1:8501", pattern=r"^https?://")
    group: str = "biohybrid"
    dense: str = "bge-small-bio"
    sparse: str = "splade-tiny"
    # The project's cross-encoder (model_artifacts/reranker); a dense model's name reranks by cosine.
    rerank: str = "ce-minilm"
    # The rerank depth: the -rerank pipelines' connector has the service score the first N fused hits
    # and blend the model's order with the fused one by rerank_model_weight (0: fused order, 1: the
    # model's); hits below N keep the fused order under them, so nothing is cut.
    rerank_top_n: int = Field(20, ge=1, le=1000)
    rerank_model_weight: float = Field(0.2, ge=0, le=1)  # chosen on nfcorpus/dev: defaults.yaml
    # bi-encoder: queries go through the SPLADE model; doc-only: a tokenizer + IDF model inside
    # OpenSearch encodes queries (no inference call), IDF computed from doc_only_idf_index.
    sparse_query_mode: Literal["bi-encoder", "doc-only"] = "bi-encoder"
    doc_only_idf_index: str = "chunks-*"
    deploy_timeout_s: float = Field(60, gt=0)
    # Folder of the Python ingest path's encoding cache (model digest + text digest -> vectors), so
    # unchanged text is never encoded twice; "" turns it off. Relative paths are from the working folder.
    encoding_cache_dir: str = ""
    # Roles whose model must run on a GPU (dense, sparse, rerank): one attempt per call, and a call that
    # meets no GPU (a CPU-only service, a CUDA failure) fails as gpu_unavailable (control_plane/resilience).
    gpu_bound: tuple[Literal["dense", "sparse", "rerank"], ...] = ()


class ApiKey(_Strict):
    """An API key, stored as its SHA-256 (the key itself never sits in configuration or logs)."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    tenant: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    role: Literal["search", "admin"] = "search"
    name: str = ""


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

    enabled: bool
    max_entries: int = Field(gt=0, le=1_000_000)
    ttl_s: float = Field(gt=0)


class QueryCacheSettings(_Strict):
    """The API's query cache (control_plane/search/query_cache/)."""

    encoding: CacheStoreSettings = CacheStoreSettings(enabled=True, max_entries=4096, ttl_s=3600)
    response: CacheStoreSettings = CacheStoreSettings(enabled=False, max_entries=512, ttl_s=300)
    # How often the served models' digests are read again from the inference service (GET /v1/models).
    models_refresh_s: float = Field(60, gt=0)


class FacetSettings(_Strict):
    """Structured facts at query time (control_plane/clinical/facet_boost.py)."""

    # facet_json's BM25 weight is multiplied by this when a clinical intent is detected (boosts on), in
    # searches of the granularities listed; 1.0 turns the boost off.
    intent_boost: float = Field(2.0, ge=1.0, le=10.0)
    boost_granularities: tuple[Literal["chunk", "document", "facet"], ...] = ("facet",)


class SparseTwoPhaseSettings(_Strict):
    """neural-search's ``neural_sparse_two_phase_processor`` (a search request processor): the query's
    tokens above ``prune_ratio`` x its largest weight score every document, the rest only rescore the
    top ``size`` x ``expansion_rate`` hits (at most ``max_window_size``). It rewrites a top-level (or
    bool should) neural_sparse query on a ``rank_features`` field; OpenSearch refuses it on SEISMIC
    fields, and leaves a neural_sparse inside a hybrid query untouched."""

    enabled: bool = False
    prune_ratio: float = Field(0.4, ge=0, le=1)
    expansion_rate: float = Field(5.0, ge=1.0)
    max_window_size: int = Field(10_000, ge=50)


class SearchSettings(_Strict):
    """The /v1/search behaviour: where it looks, its budgets and defaults."""

    index_pattern: str = "chunks-*"
    candidate_depth: int = Field(100, ge=1, le=1000)
    component_timeout_ms: int = Field(300, gt=0)
    rerank_timeout_ms: int = Field(1500, gt=0)
    opensearch_timeout_ms: int = Field(5000, gt=0)
    # true: a rerank on a service without a GPU is refused (reranker_error gpu_unavailable).
    rerank_requires_gpu: bool = False
    # Query encoding's breaker per model: after breaker_failures consecutive failed calls (0: never) the
    # component fails fast (component_errors: dense_circuit_open) until a probe after breaker_reset_s.
    breaker_failures: int = Field(5, ge=0)
    breaker_reset_s: float = Field(30, gt=0)
    intents_file: str = "intents.yaml"
    section_routing: SectionRoutingSettings = SectionRoutingSettings()
    facets: FacetSettings = FacetSettings()
    cache: QueryCacheSettings = QueryCacheSettings()
    sparse_two_phase: SparseTwoPhaseSettings = SparseTwoPhaseSettings()


class IngestSettings(_Strict):
    """How ingest's Python path encodes, and what it does when a model call fails."""

    # local: ONNX in this process (GPU when present, encoding cache); service: the inference service at
    # models.service_url (one GPU host serves every ingest; no encoding cache).
    encoder: Literal["local", "service"] = "local"
    # Calls per batch for a model that is not GPU-bound (a failed call is retried after a back-off of
    # encode_backoff_s, doubling); the model's breaker opens after breaker_failures failures in a row.
    encode_attempts: int = Field(3, ge=1)
    encode_backoff_s: float = Field(0.5, ge=0)
    breaker_failures: int = Field(3, ge=0)
    breaker_reset_s: float = Field(30, gt=0)
    service_timeout_s: float = Field(60, gt=0)


class ApiSettings(_Strict):
    host: str = "127.0.0.1"
    port: int = Field(8600, ge=1, le=65535)
    # Request threads of the production server (waitress): each mostly waits on encoders and OpenSearch.
    threads: int = Field(8, ge=1, le=256)
    keys: tuple[ApiKey, ...] = ()
    # On SIGTERM, how long running jobs (ingest, evaluate) may take to end before they are recorded as
    # interrupted and abandoned (control_plane/api/jobs.py); keep it below the service manager's stop
    # timeout (systemd: 90 s) less events.drain_s.
    job_grace_s: float = Field(10.0, ge=0)


class LedgerSettings(_Strict):
    """The job ledger (control_plane/ledger/): the index holding one document per ingest, model
    registration and evaluation job."""

    index: str = Field("jobs", pattern=r"^[a-z0-9][a-z0-9_\-]*$")


class EventsSettings(_Strict):
    """Lifecycle CloudEvents (control_plane/events/): off by default; where they go and how many searches
    emit one."""

    enabled: bool = False
    sink: Literal["http", "jsonl"] = "http"
    # http: structured-mode JSON POST to url; jsonl: one event per line appended to path (relative paths
    # are from the working folder).
    url: str = ""
    path: str = ".local/events.jsonl"
    # Share of searches that emit retrieval.completed (0: none, 1: all); ingest and job events always go.
    search_sample_rate: float = Field(0.1, ge=0, le=1)
    timeout_s: float = Field(2.0, gt=0)
    # Events waiting for the http sink's sender thread; a full queue drops the event (counted).
    queue_size: int = Field(1000, ge=1, le=1_000_000)
    # Seconds a stopping process (SIGTERM) waits for the http sink to send what it queued; within a
    # service manager's stop timeout (systemd's 90 s by default).
    drain_s: float = Field(30.0, gt=0)
    # Whether retrieval.completed carries the query text (off: queries may hold patient details).
    include_query: bool = False

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
