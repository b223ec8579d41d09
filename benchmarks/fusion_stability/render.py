"""The fusion-stability plot: stability means per configuration and the spread of per-pair RBO@10."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.fusion_stability.compute import ConfigurationStability
from benchmarks.fusion_stability.report import LABELS
from control_plane.reports.figures import new_figure, save_figure


def plot(results: Sequence[ConfigurationStability], path: Path) -> None:
    """Three panels: overlap means, metric-spread means, and the ECDF of per-pair RBO@10."""
    figure = new_figure(15, 4.6)
    names = [r.name for r in results]
    positions = np.arange(len(names))
    panels = (
        ("overlap (higher = more stable)", ("topk_jaccard", "rbo")),
        (
            "nDCG@10 spread (lower = more stable)",
            ("within_pair_metric_variance", "mean_abs_metric_difference"),
        ),
    )
    for index, (title, measures) in enumerate(panels, start=1):
        axes = figure.add_subplot(1, 3, index)
        for offset, name in enumerate(measures):
            values = [r.means[name] for r in results]
            axes.bar(positions + (offset - 0.5) * 0.4, values, 0.4, label=LABELS[name])
        axes.set_xticks(positions, names, rotation=30, ha="right")
        axes.set_ylim(0, 1)
        axes.set_title(title)
        axes.legend(fontsize="small")
    axes = figure.add_subplot(1, 3, 3)
    for r in results:
        ordered = np.sort(np.asarray(r.values["rbo"]))
        axes.step(ordered, np.arange(1, len(ordered) + 1) / len(ordered), where="post", label=r.name)
    axes.set_xlim(0, 1)
    axes.set_xlabel("RBO@10 of a pair")
    axes.set_ylabel("share of pairs at or below")
    axes.set_title("per-pair RBO@10 (curve further right = more stable)")
    axes.legend(fontsize="small")
    save_figure(figure, path)
