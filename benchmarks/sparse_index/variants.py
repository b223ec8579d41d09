"""The indices and the query model the benchmark compares: copies of a chunk index under each sparse
method, rendered from the project's chunk template, and a doc-only query model for its corpus."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from opensearchpy import OpenSearch, helpers

from control_plane.config.settings import Settings
from control_plane.mlcommons.doc_only import corpus_idf, register_tokenizer_model, tokenizer_bundle
from control_plane.query.components import DENSE_FIELD, SPARSE_FIELD, token_id_weights
from control_plane.resources.catalog import load_resources

Method = Literal["rank_features", "seismic"]
VARIANT_PREFIX = "sparsebench"


@dataclass(frozen=True)
class Variant:
    """One copy of the source index: its name, method, size and what building it cost."""

    name: str
    method: Method
    documents: int
    segments: int
    store_bytes: int
    copy_s: float
    merge_s: float
    reused: bool


def variant_name(method: Method, source: str) -> str:
    return f"{VARIANT_PREFIX}-{method}-{source}"


def method_settings(settings: Settings, method: Method, seismic: Mapping[str, Any]) -> Settings:
    """``settings`` with ``index.sparse`` set to ``method`` (and the SEISMIC parameters). The copy leaves
    the dense vectors out, and its k-NN engine is lucene, so it can be built on any node."""
    data = settings.model_dump(mode="json")
    data["index"]["sparse"] = {**data["index"]["sparse"], **seismic, "method": method}
    data["index"]["knn"]["engine"] = "lucene"
    data["index"]["shards"], data["index"]["replicas"] = 1, 0
    return Settings.model_validate(data)


def index_body(settings: Settings) -> dict[str, Any]:
    """The chunk index as the project's templates render it: chunk-settings and chunk-mappings merged."""
    bodies = {r.name: r.body for r in load_resources(settings)}
    shape = bodies["chunk-settings"]["template"]["settings"]["index"]
    mapped = bodies["chunk-mappings"]["template"]
    return {
        "settings": {"index": {**mapped["settings"]["index"], **shape}},
        "mappings": mapped["mappings"],
    }


def build_variant(
    client: OpenSearch,
    settings: Settings,
    source: str,
    token_ids: Mapping[str, int] | None,
    *,
    rebuild: bool = False,
) -> Variant:
    """Copy ``source`` into its variant for ``settings.index.sparse.method`` (reused when it already holds
    as many chunks as the source, unless ``rebuild``), force-merged to one segment."""
    method = settings.index.sparse.method
    name = variant_name(method, source)
    wanted = int(client.count(index=source)["count"])
    if not rebuild and client.indices.exists(index=name) and _count(client, name) == wanted:
        return _describe(client, name, method, 0.0, 0.0, reused=True)
    client.indices.delete(index=name, ignore_unavailable=True)
    client.indices.create(index=name, body=index_body(settings))
    started = time.perf_counter()
    helpers.bulk(
        client,
        _copies(client, source, name, token_ids),
        chunk_size=500,
        request_timeout=300,
        max_retries=2,
    )
    client.indices.refresh(index=name)
    copied = time.perf_counter() - started
    started = time.perf_counter()
    client.indices.forcemerge(index=name, max_num_segments=1, request_timeout=1800)
    client.indices.refresh(index=name)
    return _describe(client, name, method, copied, time.perf_counter() - started, reused=False)


def _copies(
    client: OpenSearch, source: str, target: str, token_ids: Mapping[str, int] | None
) -> Iterator[dict[str, Any]]:
    query = {"_source": {"excludes": [DENSE_FIELD]}, "query": {"match_all": {}}}
    for hit in helpers.scan(client, index=source, query=query, size=500, preserve_order=False):
        document = dict(hit["_source"])
        terms = document.get(SPARSE_FIELD) or {}
        document[SPARSE_FIELD] = terms if token_ids is None else token_id_weights(terms, token_ids)
        yield {"_index": target, "_id": hit["_id"], "_source": document}


def _count(client: OpenSearch, index: str) -> int:
    return int(client.count(index=index)["count"])


def _describe(
    client: OpenSearch, name: str, method: Method, copy_s: float, merge_s: float, *, reused: bool
) -> Variant:
    stats = client.indices.stats(index=name, metric="store")["indices"][name]["primaries"]["store"]
    segments = client.cat.segments(index=name, format="json")
    return Variant(
        name=name,
        method=method,
        documents=_count(client, name),
        segments=len(segments),
        store_bytes=int(stats["size_in_bytes"]),
        copy_s=copy_s,
        merge_s=merge_s,
        reused=reused,
    )


def doc_only_model(client: OpenSearch, settings: Settings, source: str, tokenizer_path: Path) -> str:
    """A SPARSE_TOKENIZE model (the sparse model's tokenizer + IDF of ``source``'s chunk text) deployed in
    ml-commons, as ``models register`` makes in doc-only mode; the same bytes deployed before are reused."""
    idf = corpus_idf(client, source, tokenizer_path)
    bundle = tokenizer_bundle(tokenizer_path.read_bytes(), idf)
    name = f"{settings.models.group}-{VARIANT_PREFIX}-doc-only-{source}"
    return register_tokenizer_model(client, name, bundle, settings.models.deploy_timeout_s)
