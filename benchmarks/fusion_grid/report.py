"""The fusion-grid report: the summary and a run header -> markdown (no I/O). ``RunHeader`` and
``run_lines`` are shared with the BM25 grid, whose header starts the same way."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from benchmarks.fusion_grid.compute import Row, Split, Summary
from control_plane.reports.markdown import markdown_table

CONFIG_PREFIX = "BIOHYBRID_CONFIG=control_plane/config/local.yaml"


@dataclass(frozen=True)
class RunHeader:
    """How a grid was run: its arguments (shell-quoted), where, when, over which splits, how long."""

    arguments: str
    machine: str
    load_average: float
    date: datetime
    splits: tuple[Split, ...]
    seconds: float


@dataclass(frozen=True)
class Header:
    run: RunHeader
    dense_model: str
    sparse_model: str
    depth: int
    plot_name: str


def run_lines(module: str, run: RunHeader) -> list[str]:
    """The header's command and machine lines."""
    queries = ", ".join(f"{s.test_set} {len(s.lists)} queries over {s.index}" for s in run.splits)
    return [
        f"Command: `{CONFIG_PREFIX} python -m {module} {run.arguments}`",
        f"Machine: {run.machine}; load average {run.load_average:.1f}; "
        f"{run.date:%Y-%m-%d %H:%M} UTC; {queries}; {run.seconds:.0f} s.",
    ]


def _cells(row: Row) -> list[str]:
    label = row.setting.label + (f" ({row.note})" if row.note else "")
    cells = [label, f"{row.overall:.4f}"]
    for split in row.splits:
        cells += [f"{split.ndcg:.4f}", f"{split.delta:+.4f}", f"{split.p_value:.3f}", f"{split.recall:.4f}"]
    return cells


def render_report(summary: Summary, header: Header) -> str:
    columns = [column for s in summary.splits for column in (f"{s} nDCG@10", "Δ", "p", "R@100")]
    best_weighted, best_rrf = summary.best_weighted, summary.best_rrf
    lines = [
        "# Fusion grid: min-max weights, RRF rank constants and weighted RRF on non-test splits",
        "",
        *run_lines("benchmarks.fusion_grid", header.run),
        f"Models: dense {header.dense_model}, sparse {header.sparse_model}; {header.depth} chunks per "
        "component, fused in-process, documents ranked by their best chunk. Weights are bm25/splade/dense.",
        "",
        f"![min-max and weighted-RRF nDCG@10 over the weights]({header.plot_name})",
        "",
        *markdown_table(["setting", "mean nDCG@10", *columns], [_cells(row) for row in summary.rows]),
        "",
        "Δ and p: against the current setting of the same fusion (min-max or RRF, weighted or not).",
        "",
        f"Best min-max (mean over the splits): {best_weighted.label}, {best_weighted.overall:.4f} "
        f"(current {best_weighted.current:.4f}). Best classic RRF: {best_rrf.label}, "
        f"{best_rrf.overall:.4f} (current RRF {best_rrf.current:.4f}).",
    ]
    if summary.best_weighted_rrf is not None:
        best = summary.best_weighted_rrf
        lines.append(
            f"Best weighted RRF: {best.label}, {best.overall:.4f} (current RRF {best.current:.4f}; "
            f"best min-max {best_weighted.overall:.4f}, {best.overall - best_weighted.overall:+.4f})."
        )
    return "\n".join(lines) + "\n"
