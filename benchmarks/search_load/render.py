"""The load plot: P95 against QPS per path, one point per client count."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.search_load.compute import SPEC_BAR_MS, LoadPoint
from control_plane.reports.figures import new_figure, save_figure


def plot(points: Sequence[LoadPoint], path: Path) -> None:
    figure = new_figure(6.5, 4.0)
    axes = figure.add_subplot(1, 1, 1)
    for name in dict.fromkeys(p.path for p in points):
        mine = sorted((p for p in points if p.path == name), key=lambda p: p.users)
        axes.plot([p.qps for p in mine], [p.p95_ms for p in mine], marker="o", label=name)
        for p in mine:
            axes.annotate(f"{p.users}", (p.qps, p.p95_ms), textcoords="offset points", xytext=(4, 4))
    axes.axhline(SPEC_BAR_MS, color="grey", linestyle="--", linewidth=1, label="spec P95 bar")
    axes.set_xlabel("throughput (QPS)")
    axes.set_ylabel("P95 latency (ms)")
    axes.set_title("hybrid-rrf under concurrent clients (labels: clients)")
    axes.legend()
    save_figure(figure, path)
