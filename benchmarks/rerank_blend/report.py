"""The rerank-blend report: grid points and a run header -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.rerank_blend.compute import (
    GridPoint,
    against_fused,
    best_point,
    fused_baseline,
)
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """The run, and what was reranked."""

    run: RunStamp
    test_set: str
    pipeline: str
    index: str
    model: str
    queries: int
    candidates: int
    plot_name: str


def header_lines(header: Header) -> list[str]:
    return [
        *report_opening(
            f"Rerank blend: {header.test_set}, {header.pipeline} over {header.index}, model {header.model}",
            header.run,
            [f"- {header.queries} queries"],
        ),
        "Document-level nDCG@10 and Recall@100 (best chunk per document) of the fused top "
        f"{header.candidates} chunks reranked by the blend; weight 0 is the fused ranking. p: paired "
        "randomization test against it (10,000 permutations).",
        "",
        f"![nDCG@10 by model weight]({header.plot_name})",
    ]


def render_report(points: Sequence[GridPoint], header: Sequence[str], grid: bool = True) -> str:
    """The header's lines, the table of every point against the fused ranking and, for a grid, the best
    point (``grid=False``, for --fixed: the settings were chosen on dev; nothing is chosen here)."""
    rows = [
        [
            str(compared.point.depth),
            f"{compared.point.weight:.2f}",
            f"{compared.point.ndcg10:.4f}",
            f"{compared.delta:+.4f}",
            f"{compared.p_value:.3f}",
            f"{compared.point.recall100:.4f}",
        ]
        for compared in against_fused(points)
    ]
    columns = ["depth", "model weight", "nDCG@10", "Δ vs fused", "p (paired)", "Recall@100"]
    lines = [*header, "", *markdown_table(columns, rows)]
    if grid:
        best, baseline = best_point(points), fused_baseline(points)
        lines += [
            "",
            f"Best point: depth {best.depth}, model weight {best.weight:.2f}: nDCG@10 {best.ndcg10:.4f} "
            f"(fused ranking {baseline.ndcg10:.4f}).",
        ]
    return "\n".join(lines) + "\n"
