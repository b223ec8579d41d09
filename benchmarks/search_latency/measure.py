"""Timing requests: each path sends one request per configuration and query over a keep-alive session
and turns the answer into a Sample; run_queries interleaves them over the queries."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import requests
from tqdm import tqdm

from benchmarks.search_latency.queries import rotated, search_body, text_request
from benchmarks.search_latency.samples import Sample, degradation_codes
from control_plane.errors import BiohybridError
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.search.spec import DEFAULT_CANDIDATE_DEPTH
from control_plane.testsets.catalog import Query

PATH_NAMES = ("api", "direct", "direct-text")
START_HINT = (
    "start it with `make run`, or `BIOHYBRID_CONFIG=control_plane/config/local.yaml biohybrid api start` "
    "(the node: `make node-up`)"
)


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
    # A secured cluster's auth and TLS: cluster.client.opensearch_session(settings.opensearch).
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


def http_error(response: requests.Response) -> str:
    """A failed answer in one short line: status and the server's message."""
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
        return Sample("api", configuration.name, index, None, error=http_error(response))
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
            "direct", configuration.name, index, None, error="rewrite: " + http_error(plan_response)
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
        return Sample(path, configuration.name, index, None, error=http_error(response))
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
    samples, loads, stopped = run_interleaved([ep], configurations, paths, queries, description, progress)
    return samples[0], loads, stopped


def run_interleaved(
    eps: Sequence[Endpoints],
    configurations: Sequence[EvalConfiguration],
    paths: Sequence[str],
    queries: Sequence[Query],
    description: str,
    progress: bool,
) -> tuple[list[list[Sample]], list[float], str | None]:
    """As :func:`run_queries` over several stacks (one per index size): each query goes to every one,
    their order rotating too, so a load swing on the shared machine reaches all of them alike. Samples
    are returned per stack, in ``eps`` order."""
    samples: list[list[Sample]] = [[] for _ in eps]
    loads: list[float] = []
    errors = 0
    order = list(range(len(eps)))
    bar = tqdm(queries, desc=description, unit="query", disable=not progress, dynamic_ncols=True)
    try:
        for index, query in enumerate(bar):
            loads.append(os.getloadavg()[0])
            for stack in rotated(order, index):
                for configuration in rotated(configurations, index):
                    for path in rotated(paths, index):
                        sample = PATHS[path](eps[stack], configuration, query.text, index)
                        if sample is not None:
                            samples[stack].append(sample)
                            errors += sample.ms is None
            bar.set_postfix(load=f"{loads[-1]:.1f}", errors=errors)
    except StackDownError as exc:
        return samples, loads, f"{exc} ({START_HINT})"
    except KeyboardInterrupt:
        return samples, loads, "interrupted (Ctrl-C)"
    finally:
        bar.close()
    return samples, loads, None
