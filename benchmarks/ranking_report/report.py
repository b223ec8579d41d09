"""The ranking-quality report: evaluated runs per test set and a header -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.ranking_report.compute import (
    BASELINE,
    METRICS,
    SAME,
    ConfigurationScores,
    EvaluatedRun,
    compare,
)
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.measures.metrics import Qrels
from control_plane.reports.markdown import markdown_table


def columns(against: str) -> list[str]:
    return [
        "configuration (run label)",
        *METRICS,
        f"Δ nDCG@10 vs {'the same configuration' if against == SAME else against}",
        "p",
        "latency p50 / p95 ms",
        "degraded queries",
    ]


@dataclass(frozen=True)
class Header:
    """The run and the preamble's markdown, if one was given."""

    run: RunStamp
    preamble: str | None


def _cells(scores: ConfigurationScores) -> list[str]:
    latency = scores.run.latency_ms
    return [
        scores.run.name,
        *(f"{v:.4f}" for v in scores.means),
        "" if scores.delta is None else f"{scores.delta:+.4f}",
        "" if scores.p_value is None else f"{scores.p_value:.3f}",
        f"{latency.get('p50', float('nan')):.0f} / {latency.get('p95', float('nan')):.0f}",
        str(sum(scores.run.degraded.values())),
    ]


def table(runs: Sequence[EvaluatedRun], qrels: Qrels, against: str = BASELINE) -> tuple[list[str], int]:
    """The markdown table and the number of queries every run answered."""
    comparison = compare(runs, qrels, against)
    rows = [_cells(c) for c in comparison.configurations]
    return markdown_table(columns(against), rows), comparison.queries


def render_report(
    header: Header,
    test_sets: Mapping[str, tuple[Sequence[EvaluatedRun], Qrels]],
    against: str = BASELINE,
) -> str:
    """One section per test set, in the order given: its table, what Δ and p mean, the runs' folders."""
    target = "the same configuration" if against == SAME else against
    lines = report_opening(f"Ranking quality: every configuration against {target}", header.run)
    if header.preamble is not None:
        lines += [header.preamble.rstrip(), ""]
    for test_set, (runs, qrels) in test_sets.items():
        rendered, count = table(runs, qrels, against)
        sources = sorted({f"`{r.source}`" for r in runs})
        lines += [
            f"## {test_set} ({count} queries)",
            "",
            *rendered,
            "",
            f"Δ and p: paired randomization test on per-query nDCG@10 against {target} under "
            f"{runs[0].label} (the first label given), same queries; latency as the evaluation measured it "
            "(SearchService, one query at a time).",
            f"Evaluation runs: {', '.join(sources)} (each report.md there names its command).",
            "",
        ]
    return "\n".join(lines)
