"""Cost growth, pure: per path and configuration, P95 at each size of one series, and the ratio of the
largest size's P95 to the reference size's (issue 17's target: at most 1.5 for hybrid, direct)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.search_latency.samples import RunRecord, ratio, summarise
from benchmarks.search_scale.steps import StepIndex

GROWTH_TARGET = 1.5  # P95 at the largest size over P95 at the reference size, hybrid, direct path
TARGET_PATH = "direct"


@dataclass(frozen=True)
class StepRun:
    """One step's index and its latency run; ``report`` is the step's own report file name."""

    step: StepIndex
    run: RunRecord
    report: str


@dataclass(frozen=True)
class GrowthRow:
    """P95 (ms) of one path and configuration at each size of the series, ascending."""

    path: str
    configuration: str
    hybrid: bool
    p95: tuple[float | None, ...]
    reference_p95: float | None

    @property
    def largest_p95(self) -> float | None:
        return self.p95[-1] if self.p95 else None

    @property
    def growth(self) -> float | None:
        """Largest size's P95 over the reference size's."""
        return ratio(self.largest_p95, self.reference_p95)

    @property
    def judged(self) -> bool:
        """Whether the target applies: a hybrid configuration on the direct path."""
        return self.hybrid and self.path == TARGET_PATH


def series_of(runs: Sequence[StepRun], series: str) -> list[StepRun]:
    """The steps cut from ``series`` (and the whole index), ascending by chunks."""
    return sorted((r for r in runs if r.step.series == series), key=lambda r: r.step.chunks)


def reference_of(series: Sequence[StepRun], reference_chunks: int) -> StepRun:
    """The step whose size is closest to ``reference_chunks`` (the smaller on a tie)."""
    if not series:
        raise ValueError("no steps in the series")
    return min(series, key=lambda r: (abs(r.step.chunks - reference_chunks), r.step.chunks))


def growth_rows(series: Sequence[StepRun], reference: StepRun, method: str) -> list[GrowthRow]:
    """One row per path and configuration of the largest step's run, in its order."""
    largest = series[-1].run
    rows = []
    for path in largest.paths:
        for configuration in largest.configurations:
            values = tuple(_p95(r.run, path, configuration.name, method) for r in series)
            rows.append(
                GrowthRow(
                    path,
                    configuration.name,
                    configuration.is_hybrid,
                    values,
                    _p95(reference.run, path, configuration.name, method),
                )
            )
    return rows


def _p95(run: RunRecord, path: str, configuration: str, method: str) -> float | None:
    return summarise(run.of(path, configuration), method).p95
