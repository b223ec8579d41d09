"""The plot: nDCG@10 against round-trip P95 per configuration, one panel per split."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from control_plane.benchmarks.sparse_index.compute import SplitFigures
from control_plane.reports.figures import new_figure, save_figure

MARKERS = {"rank_features": "o", "seismic": "s", "two-phase": "^"}
COLOURS = {"bi-encoder": "tab:blue", "doc-only": "tab:orange"}


def render_plot(splits: Sequence[SplitFigures], path: Path) -> None:
    figure = new_figure(5.0 * max(1, len(splits)), 4.0)
    for number, split in enumerate(splits, start=1):
        axes = figure.add_subplot(1, max(1, len(splits)), number)
        for row in split.rows:
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
