"""Figures for reports: a headless matplotlib figure and its one way to be written (PNG beside the report)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def new_figure(width: float, height: float) -> Figure:
    """A figure drawn without a display (no pyplot state shared between reports)."""
    figure = Figure(figsize=(width, height))
    FigureCanvasAgg(figure)
    return figure


def save_figure(figure: Figure, path: Path, dpi: int = 110) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, dpi=dpi)
