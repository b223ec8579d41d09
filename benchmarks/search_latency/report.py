"""The search latency report: a run's samples as markdown (header, index, latency, spec bars, ratios,
where the time goes, errors). Pure: no I/O."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from statistics import fmean

from benchmarks.run_stamp import report_opening
from benchmarks.search_latency.samples import (
    RunRecord,
    Sample,
    bm25_baseline,
    ratio,
    spec_bar_ms,
    summarise,
)
from control_plane.formulas.percentile import percentile
from control_plane.reports.markdown import markdown_table


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
    loads = run.loads or [run.stamp.load_before]
    changed = run.counts_before != run.counts_after
    errors = Counter((s.path, s.configuration, s.error) for s in run.samples if s.error)
    degraded = Counter((s.path, s.configuration, s.degraded_by) for s in run.samples if s.degraded)
    queries = max((s.query_index for s in run.samples), default=-1) + 1
    opening = [
        f"- onnxruntime providers (inference service /v1/models): {run.providers}",
        f"- 1-minute load average sampled before each query: min {min(loads):.2f}, mean {fmean(loads):.2f}, "
        f"max {max(loads):.2f} (above the CPU count means other work shared the cores)",
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
    ]
    lines = [
        *report_opening(
            "Search latency: /v1/search and the same request straight to OpenSearch", run.stamp, opening
        ),
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
