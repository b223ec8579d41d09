"""Timing and ranking: each configuration's splade-only request per query, interleaved over the queries
(the configurations' order rotates by one per query), over one keep-alive session."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import requests
from tqdm import tqdm

from control_plane.config.search_settings import SparseTwoPhaseSettings
from control_plane.errors import BiohybridError
from control_plane.query.components import SparseAnn, bm25_clause, sparse_text_clause, sparse_tokens_clause
from control_plane.resources.catalog import sparse_two_phase_processor

Encoding = Literal["bi-encoder", "doc-only"]
MethodName = Literal["rank_features", "seismic", "two-phase"]
METHODS: tuple[MethodName, ...] = ("rank_features", "seismic", "two-phase")
ENCODINGS: tuple[Encoding, ...] = ("bi-encoder", "doc-only")


class SparseBenchmarkError(BiohybridError, RuntimeError):
    """A benchmark request failed; the message has OpenSearch's answer."""


@dataclass(frozen=True)
class Configuration:
    method: MethodName
    encoding: Encoding

    @property
    def name(self) -> str:
        return f"{self.method} / {self.encoding}"

    @property
    def exact(self) -> Configuration:
        """The exact list of the same query encoding: rank_features, no pruning."""
        return Configuration("rank_features", self.encoding)


CONFIGURATIONS = tuple(Configuration(m, e) for m in METHODS for e in ENCODINGS)


@dataclass(frozen=True)
class Targets:
    """Where each configuration's requests go and with what: the two variant indices, the doc-only
    model, SEISMIC's query parameters and the two-phase processor's."""

    rank_features_index: str
    seismic_index: str
    doc_only_model_id: str
    seismic: SparseAnn
    two_phase: SparseTwoPhaseSettings
    depth: int


@dataclass(frozen=True)
class EncodedQuery:
    query_id: str
    text: str
    words: Mapping[str, float]
    token_ids: Mapping[str, float]


@dataclass(frozen=True)
class Sample:
    """One request: the chunk ranking (chunk id, document id, score) and its two latencies."""

    configuration: Configuration
    query_id: str
    hits: tuple[tuple[str, str, float], ...]
    took_ms: float
    round_trip_ms: float


def request_for(
    configuration: Configuration, query: EncodedQuery, targets: Targets
) -> tuple[str, dict[str, Any]]:
    """The index and the search body of one configuration for one query."""
    seismic = configuration.method == "seismic"
    ann = targets.seismic if seismic else None
    if configuration.encoding == "bi-encoder":
        clause = sparse_tokens_clause(query.token_ids if seismic else query.words, ann)
    else:
        clause = sparse_text_clause(query.text, targets.doc_only_model_id, ann)
    body: dict[str, Any] = {
        "size": targets.depth,
        "track_total_hits": False,
        "_source": ["doc_id"],
        "query": clause,
    }
    if configuration.method == "two-phase":
        body["search_pipeline"] = {"request_processors": [sparse_two_phase_processor(targets.two_phase)]}
    return (targets.seismic_index if seismic else targets.rank_features_index), body


def run_queries(
    session: requests.Session,
    url: str,
    queries: Sequence[EncodedQuery],
    targets: Targets,
    configurations: Sequence[Configuration] = CONFIGURATIONS,
    warmup: int = 0,
    timeout_s: float = 30.0,
) -> list[Sample]:
    """Every configuration for every query, interleaved; the first ``warmup`` queries are sent once
    more before, unrecorded (caches, JIT)."""
    for query in queries[:warmup]:
        for configuration in configurations:
            _send(session, url, configuration, query, targets, timeout_s)
    samples: list[Sample] = []
    for position, query in enumerate(tqdm(queries, desc="queries", unit="q")):
        shift = position % len(configurations)
        for configuration in [*configurations[shift:], *configurations[:shift]]:
            samples.append(_send(session, url, configuration, query, targets, timeout_s))
    return samples


def _send(
    session: requests.Session,
    url: str,
    configuration: Configuration,
    query: EncodedQuery,
    targets: Targets,
    timeout_s: float,
) -> Sample:
    index, body = request_for(configuration, query, targets)
    payload = json.dumps(body).encode()
    started = time.perf_counter()
    response = session.post(
        f"{url.rstrip('/')}/{index}/_search",
        data=payload,
        headers={"Content-Type": "application/json"},
        timeout=timeout_s,
    )
    round_trip_ms = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise SparseBenchmarkError(
            f"{configuration.name} on {index}: HTTP {response.status_code}: {response.text[:400]}"
        )
    answer = response.json()
    hits = tuple(
        (str(hit["_id"]), str(hit["_source"]["doc_id"]), float(hit["_score"]))
        for hit in answer["hits"]["hits"]
    )
    return Sample(configuration, query.query_id, hits, float(answer["took"]), round_trip_ms)


def two_phase_changes_hybrid(
    session: requests.Session,
    url: str,
    queries: Sequence[EncodedQuery],
    targets: Targets,
    rrf_pipeline: Mapping[str, Any],
    timeout_s: float = 30.0,
) -> tuple[int, int]:
    """How many of ``queries`` get a different hybrid (bm25 + splade, RRF) ranking when the two-phase
    processor is added to the pipeline, and of how many: whether it acts inside a hybrid query."""
    changed = 0
    for query in queries:
        rankings = []
        for extra in ([], [sparse_two_phase_processor(targets.two_phase)]):
            pipeline = {
                **rrf_pipeline,
                "request_processors": [*rrf_pipeline.get("request_processors", []), *extra],
            }
            body = {
                "size": targets.depth,
                "_source": False,
                "query": {
                    "hybrid": {"queries": [bm25_clause(query.text), sparse_tokens_clause(query.words)]}
                },
                "search_pipeline": pipeline,
            }
            response = session.post(
                f"{url.rstrip('/')}/{targets.rank_features_index}/_search",
                data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
                timeout=timeout_s,
            )
            if response.status_code != 200:
                raise SparseBenchmarkError(
                    f"hybrid check: HTTP {response.status_code}: {response.text[:400]}"
                )
            rankings.append([(h["_id"], h["_score"]) for h in response.json()["hits"]["hits"]])
        changed += rankings[0] != rankings[1]
    return changed, len(queries)
