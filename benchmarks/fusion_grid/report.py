"""The fusion-grid report: the summary and a run header -> markdown (no I/O). ``splits_line`` is shared
with the BM25 grid, which searches the same splits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.fusion_grid.compute import Row, Split, Summary
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    run: RunStamp
    splits: tuple[Split, ...]
    dense_model: str
    sparse_model: str
    depth: int
    plot_name: str


def splits_line(splits: Sequence[Split]) -> str:
    """The header's line of the splits searched: each one's queries and index."""
    return "- splits: " + ", ".join(f"{s.test_set} {len(s.lists)} queries over {s.index}" for s in splits)


def _cells(row: Row) -> list[str]:
    label = row.setting.label + (f" ({row.note})" if row.note else "")
    cells = [label, f"{row.overall:.4f}"]
    for split in row.splits:
        cells += [f"{split.ndcg:.4f}", f"{split.delta:+.4f}", f"{split.p_value:.3f}", f"{split.recall:.4f}"]
    return cells


def render_report(summary: Summary, header: Header) -> str:
    columns = [column for s in summary.splits for column in (f"{s} nDCG@10", "Δ", "p", "R@100")]
    best_weighted, best_rrf = summary.best_weighted, summary.best_rrf
    models = (
        f"- models: dense {header.dense_model}, sparse {header.sparse_model}; {header.depth} chunks per "
        "component, fused in-process, documents ranked by their best chunk. Weights are bm25/splade/dense."
    )
    lines = [
        *report_opening(
            "Fusion grid: min-max weights, RRF rank constants and weighted RRF on non-test splits",
            header.run,
            [splits_line(header.splits), models],
        ),
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
