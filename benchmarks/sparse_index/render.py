"""The plot: nDCG@10 against round-trip P95 per configuration, one panel per judged split (a split without
judgments has no nDCG@10 to place; its latency is in the report's table)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.sparse_index.compute import SplitFigures
from control_plane.reports.figures import new_figure, save_figure

MARKERS = {"rank_features": "o", "seismic": "s", "two-phase": "^"}
COLOURS = {"bi-encoder": "tab:blue", "doc-only": "tab:orange"}


def plotted(splits: Sequence[SplitFigures]) -> list[SplitFigures]:
    """The splits the plot has a panel for: the judged ones."""
    return [s for s in splits if s.judged]


def render_plot(splits: Sequence[SplitFigures], path: Path) -> None:
    panels = plotted(splits)
    figure = new_figure(5.0 * max(1, len(panels)), 4.0)
    for number, split in enumerate(panels, start=1):
        axes = figure.add_subplot(1, max(1, len(panels)), number)
        for row in split.rows:
            if row.ndcg10 is None:
                continue
            c = row.configuration
            axes.scatter(
                row.round_trip_p95,
                row.ndcg10,
                marker=MARKERS[c.method],
                color=COLOURS[c.encoding],
                label=c.name,
            )
        axes.set_title(f"{split.test_set_id} ({split.variants[0].documents:,} chunks)")
        axes.set_xlabel("round-trip P95 (ms)")
        axes.set_ylabel("nDCG@10")
        axes.grid(alpha=0.3)
        if number == 1:
            axes.legend(fontsize=7)
    save_figure(figure, path)
