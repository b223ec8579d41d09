"""The report: the run's header and the figures per mode -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.query_cache.compute import Latency, ModeFigures
from benchmarks.query_cache.draw import Draw
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.config.search_settings import QueryCacheSettings
from control_plane.reports.markdown import markdown_table

MODE_TEXT = {
    "off": "no cache",
    "encoding": "encodings cached (the default)",
    "on": "encodings and answers cached",
}


@dataclass(frozen=True)
class Header:
    run: RunStamp
    index: str
    chunks: int
    query_sets: str
    draw: Draw
    warmup: int
    size: int
    cache: QueryCacheSettings
    method: str
    providers: str
    metrics: Mapping[str, Mapping[str, float]]
    """Each mode's retrieve_cache_* series at the end of the run."""


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _latency_cells(latency: Latency) -> list[str]:
    return [f"{latency.n:,}", _ms(latency.p50), _ms(latency.p95), _ms(latency.p99), _ms(latency.mean)]


def render_report(header: Header, figures: Sequence[ModeFigures], plot: str) -> str:
    draw, cache = header.draw, header.cache
    opening = [
        f"- index `{header.index}` ({header.chunks:,} chunks); inference service: {header.providers}",
        f"- requests: {len(draw.queries):,} per mode, a Zipf draw (exponent {draw.exponent}, seed "
        f"`{draw.seed}`) over the {draw.pool:,} distinct queries of {header.query_sets}: popularity rank r "
        f"drawn with probability proportional to 1 / r^{draw.exponent}, ranks in sha256('{draw.seed}:<query "
        f"id>') order; {draw.distinct:,} distinct queries drawn, so {draw.repeat_rate:.1%} of requests "
        "repeat an earlier one (the most an unbounded, never-expiring cache could answer)",
        f"- body `{{query, size: {header.size}}}`: the API's defaults (hybrid RRF of bm25, SPLADE and dense, "
        "clinical boosts, highlights); one client, keep-alive, the modes interleaved per request (order "
        f"rotating); {header.warmup} untimed warm-up queries first (ones the draw never asks for)",
        f"- one fresh control API process per mode, caches cold at the start; cache settings: encoding "
        f"{cache.encoding.max_entries:,} entries / TTL {cache.encoding.ttl_s:g} s, response "
        f"{cache.response.max_entries:,} entries / TTL {cache.response.ttl_s:g} s",
        f"- latency: client-side, from sending the request to having read the whole answer; percentiles "
        f"{header.method}",
    ]
    lines = [
        *report_opening("Query cache: /v1/search latency with and without the cache", header.run, opening),
        "## Latency (ms)",
        "",
        *markdown_table(
            ["mode", "cache", "requests", "P50", "P95", "P99", "mean", "errors", "degraded"],
            [
                [
                    f.mode,
                    MODE_TEXT.get(f.mode, f.mode),
                    *_latency_cells(f.latency),
                    str(f.errors),
                    str(f.degraded),
                ]
                for f in figures
            ],
            align="llrrrrrrr",
        ),
        "",
        "## Hit rates",
        "",
        *markdown_table(
            [
                "mode",
                "response hit rate",
                "encoding hit rate",
                "retrieve_cache_hit_rate (response / encoding)",
            ],
            [
                [
                    f.mode,
                    _rate(f.response_hit_rate),
                    _rate(f.encoding_hit_rate),
                    " / ".join(
                        _rate(header.metrics.get(f.mode, {}).get(f'retrieve_cache_hit_rate{{cache="{c}"}}'))
                        for c in ("response", "encoding")
                    ),
                ]
                for f in figures
            ],
            align="lrrr",
        ),
        "",
        "Hit rates are per lookup: a response lookup per request, an encoding lookup per component the API "
        "encodes (dense, SPLADE) on requests the response cache did not answer. The last column is the "
        "API's own gauge at the end of the run (warm-up included).",
        "",
        "## First-seen and repeated queries (ms)",
        "",
        *markdown_table(
            ["mode", "queries", "n", "P50", "P95", "P99", "mean"],
            [
                row
                for f in figures
                for row in (
                    [f.mode, "first seen", *_latency_cells(f.first_seen)],
                    [f.mode, "repeated", *_latency_cells(f.repeated)],
                )
            ],
            align="llrrrrr",
        ),
        "",
        "## The index-state read",
        "",
    ]
    state = [f for f in figures if f.state.n]
    if state:
        lines += [
            "With the response cache on, every search first reads the index state the answer is keyed by "
            "(`_stats` of the searched indices and the cluster state version: two small OpenSearch requests; "
            "`metadata.cache.state_ms`):",
            "",
            *markdown_table(
                ["mode", "n", "P50", "P95", "P99", "mean"],
                [[f.mode, *_latency_cells(f.state)] for f in state],
                align="lrrrrr",
            ),
        ]
    else:
        lines.append("No mode ran with the response cache on.")
    lines += ["", f"![latency ECDF per mode]({plot})", ""]
    return "\n".join(lines)
