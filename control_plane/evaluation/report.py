"""The evaluation report: markdown tables (metrics with significance, per query type, component
shares, the stratification rule and counts) and two PNG plots, stating the exact command and machine.

Plots are drawn on matplotlib Figures with the Agg canvas, never pyplot, so a report can be written
from any thread (the scheduler's) without a display or global state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from control_plane.evaluation.runner import SHARE_CUTOFF, ConfigurationResult, SuiteResult
from control_plane.query.components import COMPONENT_ORDER
from control_plane.reports.figures import new_figure, save_figure
from control_plane.reports.markdown import markdown_table
from control_plane.testsets.stratify import Stratification

METRICS_PLOT = "metric_by_configuration.png"
QUERY_TYPE_PLOT = "per_query_type.png"
REPORT_FILE = "report.md"


def _fmt(value: float) -> str:
    return f"{value:.4f}"


def _marked(result: ConfigurationResult, metric: str, alpha: float) -> str:
    """The value, with * when it differs from the baseline at p < alpha."""
    test = result.significance.get(metric)
    return _fmt(result.metrics[metric]) + (" *" if test is not None and test.p_value < alpha else "")


def metrics_table(suite: SuiteResult, alpha: float) -> list[str]:
    header = ["configuration", *suite.metrics, "latency p50 ms", "p95 ms", "degraded queries"]
    rows = [
        [
            r.name,
            *(_marked(r, m, alpha) for m in suite.metrics),
            f"{r.latency_ms['p50']:.0f}",
            f"{r.latency_ms['p95']:.0f}",
            ", ".join(f"{k} {v}" for k, v in sorted(r.degraded_queries.items())) or "0",
        ]
        for r in suite.results
    ]
    return markdown_table(header, rows)


def significance_table(suite: SuiteResult) -> list[str]:
    rows = [
        [
            r.name,
            *(
                f"{r.significance[m].mean_difference:+.4f} (p={r.significance[m].p_value:.4f})"
                for m in suite.metrics
            ),
        ]
        for r in suite.results
        if r.significance
    ]
    return markdown_table(["configuration", *suite.metrics], rows)


def query_type_table(suite: SuiteResult, metric: str) -> list[str]:
    types = list(suite.query_type_counts)
    header = ["configuration", *(f"{t} (n={suite.query_type_counts[t]})" for t in types)]
    rows = [[r.name, *(_fmt(r.by_query_type[t][metric]) for t in types)] for r in suite.results]
    return markdown_table(header, rows)


def _share(result: ConfigurationResult, component: str) -> str:
    if component not in result.component_share:
        return "-"
    text = f"{result.component_share[component]:.3f} ({result.exclusive_share[component]:.3f})"
    overlap = result.top10_overlap.get(component)
    return text if overlap is None else f"{text} [{overlap:.3f}]"


def share_table(suite: SuiteResult) -> list[str]:
    rows = [
        [r.name, *(_share(r, c) for c in COMPONENT_ORDER)] for r in suite.results if r.configuration.is_hybrid
    ]
    return markdown_table(["configuration", *COMPONENT_ORDER], rows)


def stratification_lines(stratification: Stratification) -> list[str]:
    types = sorted(stratification.population)
    rows = [[t, str(stratification.population[t]), str(stratification.selected.get(t, 0))] for t in types]
    return [
        f"Rule: {stratification.rule}.",
        "",
        *markdown_table(["query type", "population", "selected"], rows),
    ]


def _legend_above_bars(axes: Axes, tallest: float, entries: int) -> None:
    """Room above the tallest bar for a one- or two-row legend, so it never hides a bar."""
    columns = min(entries, 4)
    rows = -(-entries // columns)
    axes.set_ylim(0, max(tallest, 1e-9) * (1.12 + 0.1 * rows))
    axes.legend(fontsize="small", loc="upper center", ncols=columns, frameon=False)


def _save(figure: Figure, path: Path) -> None:
    save_figure(figure, path, dpi=120)


def plot_metrics(suite: SuiteResult, path: Path) -> None:
    """Grouped bars: one group per configuration, one bar per metric."""
    names = [r.name for r in suite.results]
    positions = np.arange(len(names))
    width = 0.8 / len(suite.metrics)
    figure = new_figure(max(6.0, 1.1 * len(names) + 2), 4.5)
    axes = figure.add_subplot()
    for index, metric in enumerate(suite.metrics):
        values = [r.metrics[metric] for r in suite.results]
        axes.bar(positions + (index - (len(suite.metrics) - 1) / 2) * width, values, width, label=metric)
    axes.set_xticks(positions, names, rotation=35, ha="right")
    axes.set_ylabel("mean over queries")
    axes.set_title(f"{suite.test_set_id}: metric by configuration ({suite.query_count} queries)")
    tallest = max(r.metrics[m] for r in suite.results for m in suite.metrics)
    _legend_above_bars(axes, tallest, len(suite.metrics))
    _save(figure, path)


def plot_query_types(suite: SuiteResult, metric: str, path: Path) -> None:
    """Grouped bars: one group per configuration, one bar per query type, for ``metric``."""
    names = [r.name for r in suite.results]
    types = list(suite.query_type_counts)
    positions = np.arange(len(names))
    width = 0.8 / max(1, len(types))
    figure = new_figure(max(6.0, 1.1 * len(names) + 2), 4.5)
    axes = figure.add_subplot()
    for index, query_type in enumerate(types):
        values = [r.by_query_type.get(query_type, {}).get(metric, 0.0) for r in suite.results]
        label = f"{query_type} (n={suite.query_type_counts[query_type]})"
        axes.bar(positions + (index - (len(types) - 1) / 2) * width, values, width, label=label)
    axes.set_xticks(positions, names, rotation=35, ha="right")
    axes.set_ylabel(metric)
    axes.set_title(f"{suite.test_set_id}: {metric} by query type")
    tallest = max((v.get(metric, 0.0) for r in suite.results for v in r.by_query_type.values()), default=0.0)
    _legend_above_bars(axes, tallest, len(types))
    _save(figure, path)


DEGRADED_LISTED = 20


def degraded_lines(suite: SuiteResult) -> list[str]:
    """The degraded queries of each configuration and why (a component dropped, or the search failed
    twice and the query scored 0); the first ``DEGRADED_LISTED`` per configuration."""
    affected = [r for r in suite.results if r.degraded_detail]
    if not affected:
        return []
    lines = [
        "## Degraded queries",
        "",
        "A failed search is tried once more; a query that failed twice has no results and scores 0.",
        "",
    ]
    for result in affected:
        lines.append(f"- {result.name}: {len(result.degraded_detail)} of {suite.query_count}")
        for query_id, reasons in list(result.degraded_detail.items())[:DEGRADED_LISTED]:
            lines.append(f"  - `{query_id}`: {'; '.join(reasons)}")
        if len(result.degraded_detail) > DEGRADED_LISTED:
            lines.append(f"  - ... {len(result.degraded_detail) - DEGRADED_LISTED} more in results.json")
    return [*lines, ""]


def render_report(
    suite: SuiteResult,
    *,
    command: str,
    machine: str,
    alpha: float,
    depth: int,
    candidate_depth: int,
    index: str,
    stratification: Stratification | None = None,
    run_files: Sequence[str] = (),
) -> str:
    """The markdown text (plots referenced by file name, beside the report)."""
    primary = suite.metrics[0]
    duration = (suite.finished_at - suite.started_at).total_seconds()
    types = ", ".join(f"{t} {n}" for t, n in suite.query_type_counts.items())
    lines = [
        f"# Evaluation of {suite.test_set_id} (run {suite.run_id})",
        "",
        f"- Command: `{command}`",
        f"- Machine: {machine}",
        f"- Started {suite.started_at:%Y-%m-%d %H:%M:%S} UTC, {duration:.0f} s for "
        f"{len(suite.results)} configurations",
        f"- Index `{index}`, document level: {depth} documents per query from {candidate_depth} chunks "
        "per component (a document's score is its best chunk's)",
        f"- Queries: {suite.query_count} with a relevant document (by type: {types})",
        "",
        "## Metrics by configuration",
        "",
        f"`*`: differs from {suite.baseline} at p < {alpha} (two-sided paired randomization test)."
        if suite.baseline
        else "No baseline configuration: no significance test.",
        "",
        *metrics_table(suite, alpha),
        "",
        f"![metric by configuration]({METRICS_PLOT})",
        "",
    ]
    if suite.baseline:
        lines += [
            f"## Paired significance against {suite.baseline}",
            "",
            "Mean per-query difference (configuration minus baseline) and its p-value, uncorrected "
            "for the number of configurations.",
            "",
            *significance_table(suite),
            "",
        ]
    lines += [
        f"## {primary} by query type",
        "",
        *query_type_table(suite, primary),
        "",
        f"![per query type]({QUERY_TYPE_PLOT})",
        "",
        f"## Component share of the top {SHARE_CUTOFF}",
        "",
        f"Hybrid configurations. Over all queries, the fraction of the top-{SHARE_CUTOFF} documents to "
        "which the component gave a score (it had the document among its own candidates); in round "
        "brackets the fraction that only this component found; in square brackets the fraction also in "
        f"the component's own top {SHARE_CUTOFF} when it ran alone in this suite. Shares can sum to more "
        "than 1 (a document found by several components counts for each).",
        "",
        *share_table(suite),
        "",
    ]
    lines += degraded_lines(suite)
    if stratification is not None:
        lines += ["## Stratified query set", "", *stratification_lines(stratification), ""]
    if run_files:
        lines += ["## Run files (TREC format)", "", *(f"- `{name}`" for name in run_files), ""]
    return "\n".join(lines)


def write_report(
    suite: SuiteResult,
    out_dir: Path,
    *,
    command: str,
    machine: str,
    alpha: float,
    depth: int,
    candidate_depth: int,
    index: str,
    stratification: Stratification | None = None,
    run_files: Sequence[str] = (),
) -> Path:
    """Write report.md and its two PNG plots into ``out_dir``; returns the report's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_metrics(suite, out_dir / METRICS_PLOT)
    plot_query_types(suite, suite.metrics[0], out_dir / QUERY_TYPE_PLOT)
    text = render_report(
        suite,
        command=command,
        machine=machine,
        alpha=alpha,
        depth=depth,
        candidate_depth=candidate_depth,
        index=index,
        stratification=stratification,
        run_files=run_files,
    )
    path = out_dir / REPORT_FILE
    path.write_text(text + "\n", encoding="utf-8")
    return path
