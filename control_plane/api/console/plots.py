"""Stored evaluation runs as a plot over time: one series per (configuration, dataset), each point a run's
value of one metric, placed in an SVG viewBox the page draws as is (no plotting library in the browser).
Pure: the geometry is computed here so it can be checked by hand.

    x = LEFT + WIDTH_IN x (t - t_first) / (t_last - t_first)      (the middle when every run has one time)
    y = TOP + HEIGHT_IN x (hi - v) / (hi - lo)

with [lo, hi] the values' range widened to multiples of STEP (one STEP wide at least), so a change of a
few hundredths is visible and the axis labels stay round. The metrics plotted are quality measures in
[0, 1]."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Final

from control_plane.evaluation.store import StoredRun

VIEW_WIDTH: Final = 640
VIEW_HEIGHT: Final = 240
LEFT: Final = 40
TOP: Final = 10
WIDTH_IN: Final = 560
HEIGHT_IN: Final = 200
STEP: Final = 0.05
# The metric a plot shows when the request names none and the runs have it.
PREFERRED_METRICS: Final = ("ndcg@10", "recall@10", "mrr@10")


@dataclass(frozen=True)
class Point:
    run_id: str
    timestamp: str
    value: float
    is_baseline: bool
    x: float
    y: float


@dataclass(frozen=True)
class Series:
    configuration: str
    dataset: str
    points: tuple[Point, ...]

    @property
    def polyline(self) -> str:
        """The SVG ``points`` attribute of the line through the series."""
        return " ".join(f"{p.x:g},{p.y:g}" for p in self.points)


@dataclass(frozen=True)
class Tick:
    label: str
    position: float


@dataclass(frozen=True)
class Plot:
    metric: str
    series: tuple[Series, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    width: int = VIEW_WIDTH
    height: int = VIEW_HEIGHT
    left: int = LEFT
    top: int = TOP
    inner_width: int = WIDTH_IN
    inner_height: int = HEIGHT_IN


def known_metrics(runs: Sequence[StoredRun]) -> list[str]:
    return sorted({name for run in runs for name in run.metrics})


def default_metric(runs: Sequence[StoredRun]) -> str | None:
    """The first preferred metric the runs have, else their first by name (None: no runs)."""
    known = known_metrics(runs)
    return next((m for m in PREFERRED_METRICS if m in known), known[0] if known else None)


def value_range(values: Sequence[float]) -> tuple[float, float]:
    """[lo, hi] around ``values`` on multiples of STEP, at least one STEP wide: widened downwards (the
    metrics end at 1), upwards only from 0."""
    lo = math.floor(round(min(values) / STEP, 9)) * STEP
    hi = math.ceil(round(max(values) / STEP, 9)) * STEP
    if hi - lo < STEP / 2:
        lo, hi = (lo, lo + STEP) if lo < STEP / 2 else (hi - STEP, hi)
    return round(lo, 6), round(hi, 6)


def plot_runs(runs: Sequence[StoredRun], metric: str) -> Plot:
    """The plot of ``metric`` over the runs that have it (series sorted by configuration, dataset; points
    by time). Runs without the metric are left out; none at all gives an empty plot."""
    measured = [run for run in runs if metric in run.metrics]
    if not measured:
        return Plot(metric, (), (), ())
    times = {run.timestamp: datetime.fromisoformat(run.timestamp).timestamp() for run in measured}
    first, last = min(times.values()), max(times.values())
    lo, hi = value_range([run.metrics[metric] for run in measured])

    def x(timestamp: str) -> float:
        if last == first:
            return LEFT + WIDTH_IN / 2
        return round(LEFT + WIDTH_IN * (times[timestamp] - first) / (last - first), 1)

    def y(value: float) -> float:
        return round(TOP + HEIGHT_IN * (hi - value) / (hi - lo), 1)

    groups: dict[tuple[str, str], list[StoredRun]] = {}
    for run in measured:
        groups.setdefault((run.configuration, run.dataset), []).append(run)
    series = tuple(
        Series(
            configuration,
            dataset,
            tuple(
                Point(
                    r.run_id,
                    r.timestamp,
                    r.metrics[metric],
                    r.is_baseline,
                    x(r.timestamp),
                    y(r.metrics[metric]),
                )
                for r in sorted(group, key=lambda r: (times[r.timestamp], r.run_id))
            ),
        )
        for (configuration, dataset), group in sorted(groups.items())
    )
    edge = [min(times, key=times.__getitem__), max(times, key=times.__getitem__)]
    x_ticks = tuple(Tick(_when(stamp), x(stamp)) for stamp in dict.fromkeys(edge))
    middle = round((lo + hi) / 2, 6)
    y_ticks = tuple(Tick(f"{v:.3f}".rstrip("0").rstrip("."), y(v)) for v in (hi, middle, lo))
    return Plot(metric, series, x_ticks, y_ticks)


def _when(timestamp: str) -> str:
    return datetime.fromisoformat(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def plot_json(plot: Plot) -> dict[str, Any]:
    """The plot as the runs endpoint answers it: its fields, and each series' SVG polyline."""
    data = asdict(plot)
    for shown, series in zip(data["series"], plot.series, strict=True):
        shown["polyline"] = series.polyline
    return data
