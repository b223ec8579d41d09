"""Before timing: is the stack up, does the API search what we think, what is indexed, and what the
machine and the inference service run on (stated in the report)."""

from __future__ import annotations

from collections.abc import Sequence

import requests

from benchmarks.search_latency.measure import (
    START_HINT,
    Endpoints,
    http_error,
    rewrite,
    time_direct_text,
)
from benchmarks.search_latency.samples import IndexCounts
from control_plane.errors import BiohybridError
from control_plane.evaluation.configurations import EvalConfiguration


class SetupError(BiohybridError, RuntimeError):
    """The stack is not ready for the benchmark; the message says what to do."""


def check_stack(ep: Endpoints) -> bool:
    """Clear errors, with how to start what is missing, before any timing. Returns whether the API
    keeps connections open (werkzeug's server answers every request with `Connection: close`)."""
    keep_alive = True
    probes = (
        ("control API", f"{ep.api}/health", requests.get),
        ("OpenSearch", f"{ep.opensearch}/", ep.opensearch_session.get),  # with the cluster's auth and TLS
    )
    for what, url, get in probes:
        try:
            response = get(url, timeout=5)
        except requests.RequestException:
            raise SetupError(f"no {what} answers at {url}: {START_HINT}") from None
        if response.status_code != 200:
            raise SetupError(f"{what} at {url} answered {http_error(response)}: {START_HINT}")
        if what == "control API":
            keep_alive = response.headers.get("Connection", "").lower() != "close"
    return keep_alive


def probe_configurations(ep: Endpoints, configurations: Sequence[EvalConfiguration], query: str) -> None:
    """One rewrite per configuration: the key is accepted, the API searches --index-pattern."""
    for configuration in configurations:
        response = rewrite(ep, configuration, query)
        if response.status_code in (401, 403):
            raise SetupError(
                f"the API refused the key ({http_error(response)}): pass a search key of api.keys "
                "(local stack: --key demo-search-key)"
            )
        if response.status_code != 200:
            raise SetupError(f"/v1/rewrite for {configuration.name!r} failed: {http_error(response)}")
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
        raise SetupError(f"cannot count chunks in {ep.index_pattern!r}: {http_error(response)}")
    counts = [
        (index["key"], source["key"], int(source["doc_count"]))
        for index in response.json()["aggregations"]["index"]["buckets"]
        for source in index["source"]["buckets"]
    ]
    if not counts:
        raise SetupError(
            f"no chunks in {ep.index_pattern!r}: ingest first (`biohybrid ingest nfcorpus --index "
            "chunks-nfcorpus`, `python -m benchmarks.medline_index`)"
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
