"""Pure summaries of per-step timings: percentiles of each processor's milliseconds, in pipeline order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from control_plane.formulas.percentile import percentile


@dataclass(frozen=True)
class StepTiming:
    """One processor of the pipeline: its position and name, and its milliseconds over the questions."""

    position: int
    name: str
    n: int
    p50: float
    p95: float


def step_timings(answers: Sequence[Sequence[Mapping[str, object]]]) -> list[StepTiming]:
    """P50/P95 of each processor's ``duration_millis`` over the answers' ``processor_results`` (one list
    per question, every list the same pipeline's steps in order). A list whose steps differ from the
    first's is refused: the pipeline changed during the run."""
    if not answers:
        raise ValueError("no answer with processor_results")
    names = [str(step["processor_name"]) for step in answers[0]]
    columns: list[list[float]] = [[] for _ in names]
    for steps in answers:
        if [str(step["processor_name"]) for step in steps] != names:
            raise ValueError(f"the pipeline's steps changed during the run: {names} then {steps}")
        for column, step in zip(columns, steps, strict=True):
            column.append(float(step["duration_millis"]))  # type: ignore[arg-type]
    return [
        StepTiming(position, name, len(column), percentile(column, 50), percentile(column, 95))
        for position, (name, column) in enumerate(zip(names, columns, strict=True), start=1)
    ]


def route_step(timings: Sequence[StepTiming]) -> StepTiming:
    """The routing step: the first response-side ``ml_inference`` processor (the first of all is the
    request-side rewrite; a third, after the cut to the page, fills the page's metadata)."""
    calls = [timing for timing in timings if timing.name == "ml_inference"]
    if len(calls) < 2:
        raise ValueError(f"no response-side ml_inference step among {[t.name for t in timings]}")
    return calls[1]


def mean_model_ms(
    seconds_before: float, seconds_after: float, count_before: float, count_after: float
) -> float:
    """The route model's mean milliseconds per call between two readings of its histogram's sum and count."""
    calls = count_after - count_before
    if calls <= 0:
        raise ValueError("the route model was not called between the two readings")
    return (seconds_after - seconds_before) / calls * 1000


def paired_median(with_part: Sequence[float], without_part: Sequence[float]) -> float:
    """The median over questions of (with - without), each question's two paths timed back to back: what a
    part adds, with the machine's drift between questions cancelled."""
    if len(with_part) != len(without_part) or not with_part:
        raise ValueError("paired samples must be non-empty and of equal length")
    return percentile([a - b for a, b in zip(with_part, without_part, strict=True)], 50)
