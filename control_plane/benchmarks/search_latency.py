"""Search latency report: P50/P95/P99 of /v1/search and of the same hybrid request sent straight to
OpenSearch, per configuration, measured client-side on this machine, written as markdown with a plot.

    python -m control_plane.benchmarks.search_latency --api http://127.0.0.1:8600 --key demo-search-key \\
        --queries 1000 --index-pattern 'chunks-*' --out model_artifacts/reports/search-latency.md

Paths (each request timed from sending it to having its whole answer, on keep-alive sessions):
  api          POST /v1/search: the whole control-plane search (query encoding by the API, one
               OpenSearch request with an inline pipeline, post-processing, JSON).
  direct       the exact request /v1/search would send (POST /v1/rewrite, not timed) sent straight to
               <index>/_search with its params. It carries the query vectors the API computed, so it
               EXCLUDES query encoding; the API's encode_ms is reported beside it.
  direct-text  a text-only hybrid query (neural / neural_sparse query_text) through the named pipelines
               hybrid-rrf, hybrid-minmax, hybrid-rrf-rerank, as `biohybrid query` sends it: ml-commons
               encodes the query inside OpenSearch. Run when the models answer (`biohybrid models status`).

Configurations are the evaluation's (control_plane/config/evaluation.yaml, with +rerank[@N] / +boosts);
they and the paths are interleaved per query, the order rotating, so machine noise hits all alike.
Queries: NFCorpus train + dev (never test) in a seeded hash order, cycled when fewer than --queries.

Needs the running stack: OpenSearch with the chunk indices, the inference service and the control API
(`make run`, or `BIOHYBRID_CONFIG=control_plane/config/local.yaml biohybrid api start`). The API must
search --index-pattern (checked): start it with BIOHYBRID__SEARCH__INDEX_PATTERN=<pattern> when that is
not its search.index_pattern. Writes the report, <out>.png (latency ECDFs) beside it and, with
--samples, every timed request as CSV. Each query costs (configurations x paths) requests plus one
untimed /v1/rewrite per configuration: 1,000 queries take tens of minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean
from typing import Any, TypeVar

import requests
from tqdm import tqdm

from control_plane.config.settings import ConfigError, load_settings
from control_plane.errors import BiohybridError
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.formulas.percentile import PERCENTILE_METHODS, percentile
from control_plane.query.components import COMPONENT_ORDER, text_hybrid_query
from control_plane.reports.figures import new_figure, save_figure
from control_plane.reports.markdown import markdown_table
from control_plane.search.request import EXCLUDED_SOURCE
from control_plane.search.spec import DEFAULT_CANDIDATE_DEPTH, SearchSpec
from control_plane.testsets.catalog import Query, is_test_split, load_test_set
from control_plane.testsets.stratify import sample_key

DEFAULT_CONFIGURATIONS = "bm25,hybrid-rrf,hybrid-minmax,hybrid-rrf+rerank"
DEFAULT_QUERY_SETS = "nfcorpus/dev,nfcorpus/train"
DEFAULT_SEED = "search-latency-v1"
PATH_NAMES = ("api", "direct", "direct-text")
# The spec's bars on P95 of /v1/search.
SPEC_BARS_MS: dict[str, float] = {"hybrid": 500.0, "rerank": 650.0}
NAMED_PIPELINES = {"rrf": "hybrid-rrf", "weighted": "hybrid-minmax"}
START_HINT = (
    "start it with `make run`, or `BIOHYBRID_CONFIG=control_plane/config/local.yaml biohybrid api start` "
    "(the node: `make node-up`)"
)
T = TypeVar("T")


# -- pure pieces: queries, request bodies, summaries, bars ---------------------------------------------


def draw_queries(queries: Sequence[Query], count: int, seed: str, skip: int = 0) -> list[Query]:
    """``count`` queries in the seeded hash order (stable across runs and machines), starting after the
    first ``skip``, cycling when the list runs out."""
    if count < 0 or skip < 0:
        raise ValueError(f"count and skip must be >= 0, got {count} and {skip}")
    if not queries:
        raise ValueError("no queries to draw from")
    ordered = sorted({q.query_id: q for q in queries}.values(), key=lambda q: sample_key(seed, q.query_id))
    return [ordered[(skip + i) % len(ordered)] for i in range(count)]


def rotated(items: Sequence[T], shift: int) -> list[T]:
    """``items`` started at position ``shift`` (mod len): query i runs the configurations in this order."""
    if not items:
        return []
    cut = shift % len(items)
    return [*items[cut:], *items[:cut]]


def search_body(configuration: EvalConfiguration, query: str, size: int) -> dict[str, Any]:
    """The /v1/search body for a configuration; the rest is the API's defaults (chunk results with
    highlights), as a client sends it. Validated here so a bad configuration fails once, not 1,000 times."""
    body: dict[str, Any] = {
        "query": query,
        "size": size,
        "components": list(configuration.components),
        "fusion_method": configuration.fusion_method,
        "rank_constant": configuration.rank_constant,
        "rerank": configuration.rerank,
        "boosts": configuration.boosts,
    }
    if configuration.weights is not None:
        body["weights"] = dict(configuration.weights)
    if configuration.rerank_top_n is not None:
        body["rerank_top_n"] = configuration.rerank_top_n
    if configuration.candidate_depth is not None:
        body["candidate_depth"] = configuration.candidate_depth
    SearchSpec.model_validate(body)
    return body


def text_request(
    configuration: EvalConfiguration,
    query: str,
    size: int,
    rerank_top_n: int,
    default_depth: int = DEFAULT_CANDIDATE_DEPTH,
) -> tuple[str, dict[str, Any]] | None:
    """(named pipeline, body) of the text-only path, or None when the configuration needs the API
    (clinical boosts). Clauses as `biohybrid query` sends them, with the depth per component (k-NN k,
    pagination_depth) and the answer size of the matching /v1/search, so the work matches."""
    if configuration.boosts:
        return None
    depth = SearchSpec.model_validate(search_body(configuration, query, size)).candidate_depth
    depth = depth or default_depth  # the API's search.candidate_depth when the body leaves it out
    clauses = text_hybrid_query(query, k=depth)["hybrid"]["queries"]
    chosen = [c for name, c in zip(COMPONENT_ORDER, clauses, strict=True) if name in configuration.components]
    body: dict[str, Any] = {
        "size": (configuration.rerank_top_n or rerank_top_n) if configuration.rerank else size,
        "_source": {"excludes": list(EXCLUDED_SOURCE)},
        "query": {"hybrid": {"queries": chosen, "pagination_depth": depth}},
    }
    pipeline = NAMED_PIPELINES[configuration.fusion_method]
    if configuration.rerank:
        pipeline += "-rerank"
        body["ext"] = {"rerank": {"query_context": {"query_text": query}}}
    return pipeline, body


def spec_bar_ms(configuration: EvalConfiguration) -> float | None:
    """The spec's P95 bar: 650 ms with rerank, 500 ms for hybrid, none for a single component."""
    if configuration.rerank:
        return SPEC_BARS_MS["rerank"]
    if configuration.is_hybrid:
        return SPEC_BARS_MS["hybrid"]
    return None


def bm25_baseline(configurations: Sequence[EvalConfiguration]) -> str | None:
    """The plain bm25-only configuration hybrid ratios are taken against, if one was run."""
    return next(
        (
            c.name
            for c in configurations
            if tuple(c.components) == ("bm25",) and not c.rerank and not c.boosts
        ),
        None,
    )


@dataclass(frozen=True)
class Sample:
    """One timed request. ``ms`` is None when it failed (``error`` says why)."""

    path: str
    configuration: str
    query_index: int
    ms: float | None
    error: str | None = None
    degraded_by: str = ""  # why the answer is degraded: component_errors and reranker_error, joined
    took_ms: float | None = None
    server_ms: float | None = None
    encode_ms: dict[str, float] = field(default_factory=dict)

    @property
    def degraded(self) -> bool:
        return bool(self.degraded_by)

    @property
    def encode_wall_ms(self) -> float | None:
        """Query encoding on the request's critical path: the components are encoded concurrently."""
        return max(self.encode_ms.values()) if self.encode_ms else None


@dataclass(frozen=True)
class LatencySummary:
    count: int
    errors: int
    degraded: int
    p50: float | None
    p95: float | None
    p99: float | None
    mean: float | None
    max: float | None


def summarise(samples: Sequence[Sample], method: str = "nearest-rank") -> LatencySummary:
    """Percentiles, mean and max of the successful requests; failures and degraded answers counted."""
    values = [s.ms for s in samples if s.ms is not None]
    errors = sum(1 for s in samples if s.ms is None)
    degraded = sum(1 for s in samples if s.ms is not None and s.degraded)
    if not values:
        return LatencySummary(len(samples), errors, degraded, None, None, None, None, None)
    p50, p95, p99 = (percentile(values, p, method) for p in (50, 95, 99))
    return LatencySummary(len(samples), errors, degraded, p50, p95, p99, fmean(values), max(values))


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


# -- timing requests -----------------------------------------------------------------------------------


class StackDownError(BiohybridError, RuntimeError):
    """The API, OpenSearch or the inference service stopped answering."""


@dataclass
class Endpoints:
    """Where requests go, with one keep-alive session per server."""

    api: str
    key: str
    opensearch: str
    timeout_s: float
    index_pattern: str
    size: int
    rerank_top_n: int
    candidate_depth: int = DEFAULT_CANDIDATE_DEPTH
    api_session: requests.Session = field(default_factory=requests.Session)
    opensearch_session: requests.Session = field(default_factory=requests.Session)

    def api_headers(self) -> dict[str, str]:
        return {"X-API-Key": self.key, "Content-Type": "application/json"}


def _timed_post(
    session: requests.Session,
    url: str,
    payload: bytes,
    headers: dict[str, str],
    params: dict[str, str],
    timeout_s: float,
) -> tuple[requests.Response, float]:
    """POST with the body already encoded; stops the clock when the whole answer is read."""
    started = time.perf_counter()
    try:
        response = session.post(url, data=payload, headers=headers, params=params, timeout=timeout_s)
    except requests.ConnectionError as exc:
        if isinstance(exc, requests.Timeout):
            raise
        raise StackDownError(f"lost the connection to {url}: {exc}") from exc
    return response, (time.perf_counter() - started) * 1000


def degradation_codes(component_errors: Sequence[str], reranker_error: str | None) -> str:
    """What an answer lost, as one string: ``dense_timeout,rerank_timeout``; empty when nothing."""
    return ",".join([*component_errors, *([f"rerank_{reranker_error}"] if reranker_error else [])])


def _http_error(response: requests.Response) -> str:
    try:
        message = response.json().get("error", {})
        message = message.get("message") or message.get("reason") or message
    except (ValueError, AttributeError):
        message = response.text
    return f"HTTP {response.status_code}: {str(message)[:120]}"


def _shard_failure(answer: dict[str, Any]) -> str | None:
    shards = answer.get("_shards", {})
    if not shards.get("failed"):
        return None
    reason = (shards.get("failures") or [{}])[0].get("reason", {})
    return f"shard failure: {str(reason.get('reason', reason))[:120]}"


def time_api(ep: Endpoints, configuration: EvalConfiguration, query: str, index: int) -> Sample:
    payload = json.dumps(search_body(configuration, query, ep.size)).encode()
    try:
        response, ms = _timed_post(
            ep.api_session, f"{ep.api}/v1/search", payload, ep.api_headers(), {}, ep.timeout_s
        )
    except requests.Timeout:
        return Sample("api", configuration.name, index, None, error=f"client timeout {ep.timeout_s:g} s")
    if response.status_code != 200:
        return Sample("api", configuration.name, index, None, error=_http_error(response))
    meta = response.json()["metadata"]
    timings = meta["timings"]
    return Sample(
        "api",
        configuration.name,
        index,
        ms,
        degraded_by=degradation_codes(meta["component_errors"], meta["reranker_error"]),
        took_ms=timings.get("opensearch_ms"),
        server_ms=timings.get("total_ms"),
        encode_ms={str(k): float(v) for k, v in timings.get("encode_ms", {}).items()},
    )


def rewrite(ep: Endpoints, configuration: EvalConfiguration, query: str) -> requests.Response:
    """POST /v1/rewrite (not timed): the request /v1/search would send, with the query vectors."""
    payload = json.dumps(search_body(configuration, query, ep.size)).encode()
    response, _ = _timed_post(
        ep.api_session, f"{ep.api}/v1/rewrite", payload, ep.api_headers(), {}, ep.timeout_s
    )
    return response


def time_direct(ep: Endpoints, configuration: EvalConfiguration, query: str, index: int) -> Sample:
    try:
        plan_response = rewrite(ep, configuration, query)
    except requests.Timeout:
        return Sample("direct", configuration.name, index, None, error="rewrite: client timeout")
    if plan_response.status_code != 200:
        return Sample(
            "direct", configuration.name, index, None, error="rewrite: " + _http_error(plan_response)
        )
    plan = plan_response.json()
    # /v1/rewrite reports dropped components but not a dropped rerank: an absent `ext` is that.
    dropped_rerank = "unavailable" if configuration.rerank and "ext" not in plan["body"] else None
    degraded = degradation_codes(plan["component_errors"], dropped_rerank)
    return _time_opensearch(
        ep, "direct", configuration, index, plan["index"], plan["params"], plan["body"], degraded
    )


def time_direct_text(
    ep: Endpoints, configuration: EvalConfiguration, query: str, index: int
) -> Sample | None:
    request = text_request(configuration, query, ep.size, ep.rerank_top_n, ep.candidate_depth)
    if request is None:
        return None
    pipeline, body = request
    params = {"search_pipeline": pipeline}
    return _time_opensearch(ep, "direct-text", configuration, index, ep.index_pattern, params, body, "")


def _time_opensearch(
    ep: Endpoints,
    path: str,
    configuration: EvalConfiguration,
    index: int,
    target: str,
    params: dict[str, str],
    body: dict[str, Any],
    degraded: str,
) -> Sample:
    payload = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    url = f"{ep.opensearch}/{target}/_search"
    try:
        response, ms = _timed_post(ep.opensearch_session, url, payload, headers, params, ep.timeout_s)
    except requests.Timeout:
        return Sample(path, configuration.name, index, None, error=f"client timeout {ep.timeout_s:g} s")
    if response.status_code != 200:
        return Sample(path, configuration.name, index, None, error=_http_error(response))
    answer = response.json()
    failure = _shard_failure(answer)
    if failure:
        return Sample(path, configuration.name, index, None, error=failure)
    return Sample(path, configuration.name, index, ms, degraded_by=degraded, took_ms=float(answer["took"]))


# Each path times one request; None: the configuration cannot be sent that way (no sample).
PATHS: dict[str, Callable[[Endpoints, EvalConfiguration, str, int], Sample | None]] = {
    "api": time_api,
    "direct": time_direct,
    "direct-text": time_direct_text,
}


# -- setup: is the stack up, what does it search -------------------------------------------------------


class SetupError(BiohybridError, RuntimeError):
    """The stack is not ready for the benchmark; the message says what to do."""


class UsageError(BiohybridError, ValueError):
    """A bad argument (configuration name, test set id, count)."""


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def check_stack(ep: Endpoints) -> bool:
    """Clear errors, with how to start what is missing, before any timing. Returns whether the API
    keeps connections open (werkzeug's server answers every request with `Connection: close`)."""
    keep_alive = True
    for what, url in (("control API", f"{ep.api}/health"), ("OpenSearch", f"{ep.opensearch}/")):
        try:
            response = requests.get(url, timeout=5)
        except requests.RequestException:
            raise SetupError(f"no {what} answers at {url}: {START_HINT}") from None
        if response.status_code != 200:
            raise SetupError(f"{what} at {url} answered {_http_error(response)}: {START_HINT}")
        if what == "control API":
            keep_alive = response.headers.get("Connection", "").lower() != "close"
    return keep_alive


def probe_configurations(ep: Endpoints, configurations: Sequence[EvalConfiguration], query: str) -> None:
    """One rewrite per configuration: the key is accepted, the API searches --index-pattern."""
    for configuration in configurations:
        response = rewrite(ep, configuration, query)
        if response.status_code in (401, 403):
            raise SetupError(
                f"the API refused the key ({_http_error(response)}): pass a search key of api.keys "
                "(local stack: --key demo-search-key)"
            )
        if response.status_code != 200:
            raise SetupError(f"/v1/rewrite for {configuration.name!r} failed: {_http_error(response)}")
        searched = response.json()["index"]
        if searched != ep.index_pattern:
            raise SetupError(
                f"the API searches {searched!r}, not --index-pattern {ep.index_pattern!r}: pass "
                f"--index-pattern {searched!r}, or restart the API on the pattern with "
                f"`biohybrid api stop; BIOHYBRID__SEARCH__INDEX_PATTERN='{ep.index_pattern}' "
                "BIOHYBRID_CONFIG=control_plane/config/local.yaml biohybrid api start`"
            )


def probe_text_path(ep: Endpoints, configurations: Sequence[EvalConfiguration], query: str) -> str | None:
    """Why the text-only path cannot run (models not registered, pipeline missing), or None."""
    for configuration in configurations:
        sample = time_direct_text(ep, configuration, query, -1)
        if sample is not None and sample.ms is None:
            return (
                f"{configuration.name}: {sample.error} (are the models registered? `biohybrid models "
                "status`; `biohybrid models register` deploys them)"
            )
    return None


IndexCounts = list[tuple[str, str, int]]


def index_counts(ep: Endpoints) -> IndexCounts:
    """(index, source, chunks) under the pattern, e.g. chunks-nfcorpus/beir, chunks-medline/medline."""
    body = {
        "size": 0,
        "aggs": {
            "index": {
                "terms": {"field": "_index", "size": 200},
                "aggs": {"source": {"terms": {"field": "source", "size": 50, "missing": "(none)"}}},
            }
        },
    }
    response = ep.opensearch_session.post(
        f"{ep.opensearch}/{ep.index_pattern}/_search", json=body, timeout=ep.timeout_s
    )
    if response.status_code != 200:
        raise SetupError(f"cannot count chunks in {ep.index_pattern!r}: {_http_error(response)}")
    counts = [
        (index["key"], source["key"], int(source["doc_count"]))
        for index in response.json()["aggregations"]["index"]["buckets"]
        for source in index["source"]["buckets"]
    ]
    if not counts:
        raise SetupError(
            f"no chunks in {ep.index_pattern!r}: ingest first (`biohybrid ingest nfcorpus --index "
            "chunks-nfcorpus`, `python -m control_plane.benchmarks.medline_index`)"
        )
    return sorted(counts)


def onnx_providers(inference_url: str) -> str:
    """Execution providers per served model, from the inference service's /v1/models."""
    try:
        models = requests.get(f"{inference_url}/v1/models", timeout=5).json()["models"]
    except (requests.RequestException, ValueError, KeyError):
        return f"unknown (no answer from {inference_url}/v1/models)"
    return "; ".join(
        f"{m['name']} ({m.get('role', '?')}): {', '.join(m.get('providers', []))}" for m in models
    )


def cpu_model() -> str:
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return platform.processor() or "unknown CPU"
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "unknown CPU")


def load_queries(test_set_ids: Sequence[str]) -> list[Query]:
    """The texts of train/dev splits; a test split is refused (it is for quality reports only)."""
    for test_set_id in test_set_ids:
        if is_test_split(test_set_id):
            raise UsageError(f"{test_set_id!r} is a test split: latency queries come from train/dev only")
    return [query for test_set_id in test_set_ids for query in load_test_set(test_set_id).queries()]


# -- the run -------------------------------------------------------------------------------------------


def run_queries(
    ep: Endpoints,
    configurations: Sequence[EvalConfiguration],
    paths: Sequence[str],
    queries: Sequence[Query],
    description: str,
    progress: bool,
) -> tuple[list[Sample], list[float], str | None]:
    """Every query through every configuration and path, the order rotating with the query. Returns
    the samples, the 1-minute load average seen before each query, and why the run stopped early (the
    stack went down, or Ctrl-C) or None: a long run keeps what it measured."""
    samples: list[Sample] = []
    loads: list[float] = []
    errors = 0
    bar = tqdm(queries, desc=description, unit="query", disable=not progress, dynamic_ncols=True)
    try:
        for index, query in enumerate(bar):
            loads.append(os.getloadavg()[0])
            for configuration in rotated(configurations, index):
                for path in rotated(paths, index):
                    sample = PATHS[path](ep, configuration, query.text, index)
                    if sample is not None:
                        samples.append(sample)
                        errors += sample.ms is None
            bar.set_postfix(load=f"{loads[-1]:.1f}", errors=errors)
    except StackDownError as exc:
        return samples, loads, f"{exc} ({START_HINT})"
    except KeyboardInterrupt:
        return samples, loads, "interrupted (Ctrl-C)"
    finally:
        bar.close()
    return samples, loads, None


@dataclass
class RunRecord:
    """Everything the report states."""

    command: str
    started: datetime
    seconds: float
    machine: str
    providers: str
    loads: list[float]
    load_before: float
    load_after: float
    api: str
    opensearch: str
    index_pattern: str
    counts_before: IndexCounts
    counts_after: IndexCounts
    query_source: str
    warmup: int
    method: str
    paths: list[str]
    skipped_paths: dict[str, str]
    configurations: list[EvalConfiguration]
    samples: list[Sample]
    plot_name: str
    api_keep_alive: bool = True
    stopped: str | None = None

    def of(self, path: str, configuration: str) -> list[Sample]:
        return [s for s in self.samples if s.path == path and s.configuration == configuration]


# -- the report ----------------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def _pair(values: Sequence[float | None], method: str) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "—"
    return f"{percentile(present, 50, method):.1f} / {percentile(present, 95, method):.1f}"


def latency_rows(run: RunRecord) -> list[list[str]]:
    rows = []
    for path in run.paths:
        for configuration in run.configurations:
            s = summarise(run.of(path, configuration.name), run.method)
            cells = [_ms(v) for v in (s.p50, s.p95, s.p99, s.mean, s.max)]
            rows.append(
                [path, configuration.name, str(s.count - s.errors), *cells, str(s.errors), str(s.degraded)]
            )
    return rows


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


# Where the time goes: each column's own percentiles over the answered requests.
SPLIT_COLUMNS: dict[str, Callable[[Sample], float | None]] = {
    "round trip": lambda s: s.ms,
    "OpenSearch took": lambda s: s.took_ms,
    "round trip − took": lambda s: _minus(s.ms, s.took_ms),
    "API total_ms": lambda s: s.server_ms,
    "round trip − total_ms": lambda s: _minus(s.ms, s.server_ms),
    "encode (slowest component)": lambda s: s.encode_wall_ms,
    "encode dense": lambda s: s.encode_ms.get("dense"),
    "encode splade": lambda s: s.encode_ms.get("splade"),
}


def split_rows(run: RunRecord) -> list[list[str]]:
    rows = []
    for path in run.paths:
        for configuration in run.configurations:
            ok = [s for s in run.of(path, configuration.name) if s.ms is not None]
            cells = [_pair([column(s) for s in ok], run.method) for column in SPLIT_COLUMNS.values()]
            rows.append([path, configuration.name, *cells])
    return rows


def bar_rows(run: RunRecord) -> list[list[str]]:
    rows = []
    for configuration in run.configurations:
        bar = spec_bar_ms(configuration)
        if bar is None:
            continue
        for path in run.paths:
            p95 = summarise(run.of(path, configuration.name), run.method).p95
            verdict = "n/a" if p95 is None else ("pass" if p95 < bar else "**FAIL**")
            label = f"{path} (the spec's measure)" if path == "api" else path
            rows.append([configuration.name, label, _ms(p95), f"< {bar:.0f}", verdict])
    return rows


def ratio_rows(run: RunRecord) -> list[list[str]]:
    baseline = bm25_baseline(run.configurations)
    if baseline is None:
        return []
    rows = []
    for path in run.paths:
        base = summarise(run.of(path, baseline), run.method)
        for configuration in run.configurations:
            if configuration.name == baseline:
                continue
            s = summarise(run.of(path, configuration.name), run.method)
            r50, r95 = ratio(s.p50, base.p50), ratio(s.p95, base.p95)
            cells = ["n/a" if r is None else f"{r:.2f}" for r in (r50, r95)]
            rows.append([path, f"{configuration.name} / {baseline}", *cells])
    return rows


def render_report(run: RunRecord) -> str:
    loads = run.loads or [run.load_before]
    changed = run.counts_before != run.counts_after
    errors = Counter((s.path, s.configuration, s.error) for s in run.samples if s.error)
    degraded = Counter((s.path, s.configuration, s.degraded_by) for s in run.samples if s.degraded)
    queries = max((s.query_index for s in run.samples), default=-1) + 1
    lines = [
        "# Search latency: /v1/search and the same request straight to OpenSearch",
        "",
        f"- command: `{run.command}`",
        f"- date: {run.started.isoformat(timespec='seconds')} (UTC), run time {run.seconds / 60:.1f} min",
        f"- machine: {run.machine}",
        f"- onnxruntime providers (inference service /v1/models): {run.providers}",
        f"- 1-minute load average before / after: {run.load_before:.2f} / {run.load_after:.2f}; sampled "
        f"before each query: min {min(loads):.2f}, mean {fmean(loads):.2f}, max {max(loads):.2f} (above the "
        "CPU count means other work shared the cores)",
        f"- API {run.api}, OpenSearch {run.opensearch}, index pattern `{run.index_pattern}`",
        f"- queries: {queries} per configuration and path ({run.warmup} warm-up queries before, not "
        f"counted): {run.query_source}" + (f"; **stopped early**: {run.stopped}" if run.stopped else ""),
        f"- percentiles: {run.method} "
        + (
            "(the smallest observed latency with at least p% of requests at or below it)"
            if run.method == "nearest-rank"
            else "(linear interpolation between closest ranks, numpy's default)"
        )
        + "; over successful requests",
        "- timing: client-side, from sending the request to having read the whole answer, keep-alive "
        "sessions; request bodies are JSON-encoded before the clock starts and answers decoded after it "
        "stops. Configurations and paths are interleaved per query (round-robin, order rotating)."
        + (
            ""
            if run.api_keep_alive
            else " The API closes every connection (`Connection: close`, werkzeug's server), so each "
            "`api` request also pays a loopback TCP connect; OpenSearch connections are reused."
        ),
        "",
        "## Index",
        "",
        *markdown_table(["index", "source", "chunks"], [[i, s, f"{n:,}"] for i, s, n in run.counts_before]),
        "",
        f"Total {sum(n for _, _, n in run.counts_before):,} chunks"
        + (
            "; **the counts changed during the run** (writes competed with the searches): "
            + ", ".join(f"{i}/{s} {n:,}" for i, s, n in run.counts_after)
            if changed
            else "; unchanged during the run."
        ),
        "",
        "## Latency (ms)",
        "",
        *markdown_table(
            ["path", "configuration", "n", "P50", "P95", "P99", "mean", "max", "errors", "degraded"],
            latency_rows(run),
        ),
        "",
        "Degraded: answered, but /v1/search dropped a component (`component_errors`) or the rerank "
        "(`reranker_error`); for `direct`, the rewrite had dropped them. Errors are not in the percentiles.",
        "",
        f"![latency ECDF per path and configuration]({run.plot_name})",
        "",
        "## Spec bars (P95)",
        "",
        *markdown_table(["configuration", "path", "P95 ms", "bar ms", "result"], bar_rows(run)),
        "",
        "## Hybrid / bm25-only, same run",
        "",
        *(
            markdown_table(["path", "ratio", "P50", "P95"], ratio_rows(run))
            if ratio_rows(run)
            else ["n/a: no plain bm25 configuration was run."]
        ),
        "",
        "## Where the time goes (ms, P50 / P95 of each column on its own: they do not add up)",
        "",
        *markdown_table(["path", "configuration", *SPLIT_COLUMNS], split_rows(run)),
        "",
        "- `direct` **excludes query encoding**: its body carries the vectors /v1/search computed (from "
        "/v1/rewrite, untimed). Add the API's encode column to compare it with `api`; `direct-text` is "
        "the path where OpenSearch encodes the text itself (ml-commons remote models calling the same "
        "inference service).",
        "- API columns come from the answer's `metadata.timings`: `total_ms` is measured inside the "
        "search service (no HTTP, auth or JSON serialisation: that is `round trip − total_ms`); "
        "`encode_ms` lists only components that were encoded in time (a dropped component's wait is in "
        "`total_ms` only); dense and SPLADE run concurrently, so the slowest is the critical path.",
        "- `OpenSearch took` is OpenSearch's own `took`; `round trip − took` is transport and JSON plus "
        "what `took` leaves out: the search pipeline's response processors, i.e. the whole rerank.",
    ]
    if "direct-text" in run.paths:
        lines.append(
            "- `direct-text` sends the clauses `biohybrid query` sends (text only, the named pipelines' "
            "fusion weights) with the API's depth (k-NN k and pagination_depth) and answer size, but no "
            "tenant filter; configurations with +boosts cannot be sent that way (no rows)."
        )
    for path, reason in run.skipped_paths.items():
        lines.append(f"- `{path}` was not run: {reason}")
    if errors:
        lines += ["", "## Errors", ""]
        lines += markdown_table(
            ["path", "configuration", "error", "count"],
            [[p, c, str(e), str(n)] for (p, c, e), n in errors.most_common(15)],
        )
    if degraded:
        lines += ["", "## Degraded answers", ""]
        lines += markdown_table(
            ["path", "configuration", "dropped", "count"],
            [[p, c, d, str(n)] for (p, c, d), n in degraded.most_common(15)],
        )
        if any("rerank_timeout" in d for (_, _, d) in degraded):
            lines += [
                "",
                "A rerank timeout abandons a request that keeps running inside OpenSearch (and its "
                "rerank call in the inference service): the requests after it pay for that work too.",
            ]
    lines += ["", "One run on a shared machine: compare rows of this run, not runs of different days.", ""]
    return "\n".join(lines)


def plot_ecdf(run: RunRecord, path: Path) -> None:
    """One panel per path: the latency ECDF of each configuration, with the spec's bars."""
    figure = new_figure(5.0 * len(run.paths), 4.2)
    for position, route in enumerate(run.paths, start=1):
        axes = figure.add_subplot(1, len(run.paths), position)
        for configuration in run.configurations:
            values = sorted(s.ms for s in run.of(route, configuration.name) if s.ms is not None)
            if values:
                fractions = [(i + 1) / len(values) for i in range(len(values))]
                axes.step(values, fractions, where="post", label=configuration.name)
        for name, bar in SPEC_BARS_MS.items():
            axes.axvline(bar, linestyle="--", linewidth=0.8, color="grey")
            axes.text(bar, 0.35, f" {name} {bar:.0f} ms", rotation=90, fontsize="x-small", color="grey")
        axes.set_xscale("log")
        axes.set_xlabel("latency, ms (log scale)")
        axes.set_ylabel("fraction of requests at or below")
        axes.set_title(route)
        axes.grid(alpha=0.3)
        axes.legend(fontsize="small", loc="upper left")
    save_figure(figure, path)


def write_samples(samples: Sequence[Sample], path: Path) -> None:
    """Every timed request as CSV (encode_ms as JSON), for plots or tests of one's own."""
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(Sample.__dataclass_fields__))
        writer.writeheader()
        for sample in samples:
            writer.writerow({**asdict(sample), "encode_ms": json.dumps(sample.encode_ms)})


# -- command line --------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m control_plane.benchmarks.search_latency",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--api", default="http://127.0.0.1:8600", help="control API base URL")
    parser.add_argument(
        "--key",
        default=os.environ.get("BIOHYBRID_API_KEY"),
        help="search API key (default $BIOHYBRID_API_KEY; local stack: demo-search-key)",
    )
    parser.add_argument("--opensearch", help="OpenSearch URL (default: opensearch.url of the settings)")
    parser.add_argument("--inference", help="inference service URL (default: models.service_url)")
    parser.add_argument("--queries", type=int, default=1000, help="timed queries (default 1000)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed warm-up queries first (default 20)")
    parser.add_argument(
        "--configurations",
        default=DEFAULT_CONFIGURATIONS,
        help=f"evaluation configurations, comma-separated (default {DEFAULT_CONFIGURATIONS})",
    )
    parser.add_argument(
        "--paths",
        help="comma-separated of api,direct,direct-text (default: api,direct, "
        "and direct-text when the registered models answer)",
    )
    parser.add_argument(
        "--index-pattern",
        default="chunks-*",
        help="what the API searches (checked) and direct paths send to (default chunks-*)",
    )
    parser.add_argument("--size", type=int, default=10, help="results per search (default 10)")
    parser.add_argument(
        "--query-sets",
        default=DEFAULT_QUERY_SETS,
        help=f"train/dev test set ids the texts come from (default {DEFAULT_QUERY_SETS})",
    )
    parser.add_argument("--seed", default=DEFAULT_SEED, help="seed of the query order")
    parser.add_argument("--percentile-method", choices=list(PERCENTILE_METHODS), default="nearest-rank")
    parser.add_argument("--timeout", type=float, default=30.0, help="client timeout per request, seconds")
    parser.add_argument("--out", type=Path, required=True, help="markdown report; the PNG goes beside it")
    parser.add_argument("--samples", type=Path, help="also write every timed request as CSV")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.key:
        print("error: give a search API key with --key or $BIOHYBRID_API_KEY", file=sys.stderr)
        return 2
    try:
        return _run(args, argv if argv is not None else sys.argv[1:])
    except (ConfigError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (SetupError, StackDownError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3


def _run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    import shlex

    settings = load_settings()
    try:
        configurations = load_evaluation_settings().resolve(_names(args.configurations))
        pool = load_queries(_names(args.query_sets))
        measured = draw_queries(pool, args.queries, args.seed)
        warmup = draw_queries(pool, args.warmup, args.seed, skip=args.queries)
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    wanted_paths = _names(args.paths) if args.paths else None
    if set(wanted_paths or []) - set(PATH_NAMES):
        raise UsageError(f"unknown path in --paths {args.paths!r}; known: {', '.join(PATH_NAMES)}")
    ep = Endpoints(
        api=args.api.rstrip("/"),
        key=args.key,
        opensearch=(args.opensearch or settings.opensearch.url).rstrip("/"),
        timeout_s=args.timeout,
        index_pattern=args.index_pattern,
        size=args.size,
        rerank_top_n=settings.models.rerank_top_n,
        candidate_depth=settings.search.candidate_depth,
    )
    distinct = len({q.query_id for q in pool})
    repeats = f"cycled {args.queries / distinct:.2f} times" if args.queries > distinct else "no repeats"
    order = f"sha256('{args.seed}:<query id>')"
    source = f"{' + '.join(_names(args.query_sets))} ({distinct:,} queries) ordered by {order}, {repeats}"
    api_keep_alive = check_stack(ep)
    probe_configurations(ep, configurations, measured[0].text)
    paths, skipped = ["api", "direct"], {}
    if wanted_paths is None or "direct-text" in wanted_paths:
        reason = probe_text_path(ep, configurations, measured[0].text)
        if reason is None:
            paths.append("direct-text")
        elif wanted_paths is not None:
            raise SetupError(f"direct-text cannot run: {reason}")
        else:
            skipped["direct-text"] = reason
    if wanted_paths is not None:
        paths = [p for p in PATH_NAMES if p in wanted_paths and p in paths]
    counts_before = index_counts(ep)
    started, clock = datetime.now(UTC), time.monotonic()
    progress = not args.no_progress
    load_before = os.getloadavg()[0]
    _, _, stopped = run_queries(ep, configurations, paths, warmup, "warm-up", progress)
    if stopped:
        raise SetupError(f"warm-up stopped: {stopped}")
    samples, loads, stopped = run_queries(ep, configurations, paths, measured, "search latency", progress)
    load_after = os.getloadavg()[0]
    run = RunRecord(
        command=f"python -m control_plane.benchmarks.search_latency {shlex.join(argv)}",
        started=started,
        seconds=time.monotonic() - clock,
        machine=f"{platform.machine()}, {os.cpu_count()} CPUs, {cpu_model()}",
        providers=onnx_providers((args.inference or settings.models.service_url).rstrip("/")),
        loads=loads,
        load_before=load_before,
        load_after=load_after,
        api=ep.api,
        opensearch=ep.opensearch,
        index_pattern=ep.index_pattern,
        counts_before=counts_before,
        counts_after=counts_before if stopped else index_counts(ep),
        query_source=source,
        warmup=args.warmup,
        method=args.percentile_method,
        paths=paths,
        skipped_paths=skipped,
        configurations=configurations,
        samples=samples,
        plot_name=args.out.with_suffix(".png").name,
        api_keep_alive=api_keep_alive,
        stopped=stopped,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(run), encoding="utf-8")
    plot_ecdf(run, args.out.with_suffix(".png"))
    if args.samples:
        write_samples(samples, args.samples)
    for row in latency_rows(run):
        print(
            f"{row[0]:<12} {row[1]:<22} P50 {row[3]:>7} P95 {row[4]:>7} P99 {row[5]:>7} ms  "
            f"errors {row[8]} degraded {row[9]}"
        )
    print(f"report written to {args.out} (plot {args.out.with_suffix('.png')})")
    if stopped:
        print(f"error: the run stopped early: {stopped}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
