"""The search scale report: steps, P50 / P95 per size, and the growth table with its target -> markdown
(no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.run_stamp import RunStamp, report_opening
from benchmarks.search_latency.samples import summarise
from benchmarks.search_scale.compute import (
    GROWTH_TARGET,
    TARGET_PATH,
    GrowthRow,
    StepRun,
)
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """The run as a whole: command, machine, load; the per-step runs state their own details."""

    run: RunStamp
    queries: int
    warmup: int
    query_source: str
    method: str
    providers: str
    plot: str | None


def format_ms(value: float | None) -> str:
    """Milliseconds to one decimal; "—" where no request succeeded."""
    return "—" if value is None else f"{value:.1f}"


def _label(run: StepRun) -> str:
    return f"{run.step.chunks:,}"


def step_rows(runs: Sequence[StepRun]) -> list[list[str]]:
    return [
        [
            f"`{r.step.index}`",
            r.step.origin,
            f"{r.step.chunks:,}",
            str(r.step.segments),
            f"{r.step.store_bytes / 2**20:,.0f}",
            "reused" if r.step.build_s is None else f"{r.step.build_s:.0f}",
            f"[{r.report}]({r.report})",
        ]
        for r in runs
    ]


def percentile_rows(runs: Sequence[StepRun], method: str, which: str) -> list[list[str]]:
    """One row per path and configuration: the ``which`` percentile (p50 / p95 / p99) at each step."""
    first = runs[0].run
    rows = []
    for path in first.paths:
        for configuration in first.configurations:
            cells = []
            for r in runs:
                summary = summarise(r.run.of(path, configuration.name), method)
                cells.append(format_ms(getattr(summary, which)))
            rows.append([path, configuration.name, *cells])
    return rows


def error_total(runs: Sequence[StepRun]) -> tuple[int, int]:
    """Failed and degraded requests over every step."""
    samples = [s for r in runs for s in r.run.samples]
    return sum(s.ms is None for s in samples), sum(s.ms is not None and s.degraded for s in samples)


def growth_table(rows: Sequence[GrowthRow]) -> list[list[str]]:
    out = []
    for row in rows:
        growth = row.growth
        verdict = ""
        if row.judged and growth is not None:
            verdict = "met" if growth <= GROWTH_TARGET else "**missed**"
        out.append(
            [
                row.path,
                row.configuration,
                format_ms(row.reference_p95),
                format_ms(row.largest_p95),
                "—" if growth is None else f"{growth:.2f}",
                verdict,
            ]
        )
    return out


def render_report(
    header: Header,
    runs: Sequence[StepRun],
    series: Sequence[StepRun],
    reference: StepRun,
    growth: Sequence[GrowthRow],
) -> str:
    ordered = sorted(runs, key=lambda r: r.step.chunks)
    sizes = [_label(r) for r in ordered]
    failed, degraded = error_total(ordered)
    largest = series[-1]
    opening = [
        f"- inference service: {header.providers}",
        f"- queries: {header.queries} per configuration, path and size ({header.warmup} warm-up queries "
        f"first, not counted): {header.query_source}",
        f"- percentiles: {header.method}; client-side, keep-alive sessions (each step's own report gives "
        "its full table, the encode split and its ECDF)",
        "- one run: every query goes to every size, and within a size through every configuration and "
        "path, all three orders rotating per query, so a load swing on the shared machine reaches every "
        "size alike; each size has a control API of its own (`search.index_pattern` = its index), the "
        "direct paths send to the same index",
    ]
    lines = [
        *report_opening("Search latency at growing index sizes", header.run, opening),
        "## Indices",
        "",
        *markdown_table(
            ["index", "what", "chunks", "segments", "store MiB", "copy s", "report"],
            step_rows(ordered),
            align="llrrrrl",
        ),
        "",
        f"Failed requests over all steps: {failed}; degraded answers: {degraded}.",
        "",
        "## P50 (ms) by index size (chunks)",
        "",
        *markdown_table(
            ["path", "configuration", *sizes],
            percentile_rows(ordered, header.method, "p50"),
            align="ll" + "r" * len(sizes),
        ),
        "",
        "## P95 (ms) by index size (chunks)",
        "",
        *markdown_table(
            ["path", "configuration", *sizes],
            percentile_rows(ordered, header.method, "p95"),
            align="ll" + "r" * len(sizes),
        ),
        "",
        f"## Growth: {largest.step.index} ({largest.step.chunks:,} chunks) against "
        f"{reference.step.index} ({reference.step.chunks:,} chunks)",
        "",
        f"Same corpus at both sizes. Target: P95 at the largest size ≤ {GROWTH_TARGET}× P95 at the "
        f"reference size for the hybrid configurations on the `{TARGET_PATH}` path.",
        "",
        *markdown_table(
            ["path", "configuration", "P95 at reference", "P95 at largest", "growth ×", "target"],
            growth_table(growth),
            align="llrrrl",
        ),
        "",
    ]
    if header.plot:
        lines += [f"![P95 against index size per path]({header.plot})", ""]
    lines += [
        "One run on a shared 2-core machine (client, APIs, inference service and OpenSearch on the same "
        "cores): read ratios and the shape of the growth, not the third digit.",
        "",
    ]
    return "\n".join(lines)
