"""The BM25 grid report: the grid, its tables and a run header -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from benchmarks.bm25_grid.compute import MIN_GAIN, Grid, Point, Table, Tables
from benchmarks.fusion_grid.compute import Split
from benchmarks.fusion_grid.report import splits_line
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    run: RunStamp
    splits: tuple[Split, ...]
    dense_model: str
    sparse_model: str
    fusion_weights: Mapping[str, float]
    rrf_rank_constant: int
    plot_name: str


def table_lines(table: Table, baseline: Point) -> list[str]:
    """One row per point: per split and configuration nDCG@10, Δ and p; the mean hybrid-minmax last."""
    columns = [
        f"{s} {c}{column}" for s in table.splits for c in table.configurations for column in ("", " Δ", " p")
    ]
    rows = []
    for row in table.rows:
        cells = [row.point.label + (" (current)" if row.point == baseline else "")]
        for cell in row.cells:
            cells += [f"{cell.ndcg:.4f}", f"{cell.delta:+.4f}", f"{cell.p_value:.3f}"]
        rows.append([*cells, f"{row.mean_minmax:.4f}"])
    return markdown_table(["setting", *columns, "mean hybrid-minmax"], rows)


def render_report(grid: Grid, tables: Tables, header: Header) -> str:
    baseline = grid.baseline
    recalls = "; ".join(
        f"{p.depths}: " + ", ".join(f"{s} {grid.scored[p][s].recall:.4f}" for s in grid.scored[p])
        for p in grid.depths
    )
    models = (
        f"- models: dense {header.dense_model}, sparse {header.sparse_model}; fusion weights "
        f"{header.fusion_weights}, RRF k {header.rrf_rank_constant}. nDCG@10 at the "
        "document level (best chunk); Δ and p (paired randomization) against the current setting."
    )
    lines = [
        *report_opening(
            "BM25 similarity, field boosts and candidate depth on non-test splits",
            header.run,
            [splits_line(header.splits), models],
        ),
        "Reference check — mean top-10 overlap of the exact BM25 with OpenSearch's at the index's "
        f"k1 {baseline.k1:g} / b {baseline.b:g}: "
        + ", ".join(f"{s} {v:.3f}" for s, v in grid.parities.items()),
        "",
        f"![nDCG@10 over k1 and b]({header.plot_name})",
        "",
        "## k1 and b (current field boosts, depth 100 per component), best mean hybrid-minmax first",
        "",
        *table_lines(tables.similarity, baseline),
        "",
        "Chosen by the rule (best mean hybrid-minmax, gaining at least "
        f"{MIN_GAIN} on average and losing on no split; else the current): **{grid.best_similarity.label}**.",
        "",
        "## Field boosts",
        "",
        *table_lines(tables.boosts, baseline),
        "",
        f"Chosen: **{grid.best_boosts.label}**.",
        "",
        "## Candidate depth per component (bm25/splade/dense; current similarity and boosts)",
        "",
        *table_lines(tables.depths, baseline),
        "",
        f"Recall@100 (hybrid-minmax) per depth: {recalls}",
    ]
    return "\n".join(lines) + "\n"
