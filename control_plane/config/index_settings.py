"""Settings ``index``: the chunk indices' names, shards and fields (BM25 similarity, the k-NN vector,
the SPLADE field), what the index template renders."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from control_plane.config.strict import StrictSettings


class Bm25Settings(StrictSettings):
    """The text fields' BM25 similarity (a change needs a re-index)."""

    k1: float = Field(1.2, ge=0, description="term-frequency saturation (Lucene's default)")
    b: float = Field(0.75, ge=0, le=1, description="length normalisation (Lucene's default)")


class KnnSettings(StrictSettings):
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


class SparseIndexSettings(StrictSettings):
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


class IndexSettings(StrictSettings):
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
