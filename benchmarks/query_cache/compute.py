"""Figures per mode from the samples (pure): latency percentiles overall and on first-seen vs repeated
queries, hit rates, and the index-state read's cost."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.query_cache.measure import Sample
from control_plane.formulas.percentile import percentile


@dataclass(frozen=True)
class Latency:
    n: int
    p50: float | None
    p95: float | None
    p99: float | None
    mean: float | None

    @classmethod
    def of(cls, values: Sequence[float], method: str) -> Latency:
        if not values:
            return cls(0, None, None, None, None)
        return cls(
            len(values),
            percentile(values, 50, method),
            percentile(values, 95, method),
            percentile(values, 99, method),
            sum(values) / len(values),
        )


@dataclass(frozen=True)
class ModeFigures:
    mode: str
    requests: int
    errors: int
    degraded: int
    latency: Latency
    first_seen: Latency
    repeated: Latency
    response_hit_rate: float | None
    encoding_hit_rate: float | None
    state: Latency
    """The index-state read (metadata.cache.state_ms), with the response cache on."""


def mode_figures(samples: Sequence[Sample], mode: str, method: str) -> ModeFigures:
    mine = [s for s in samples if s.mode == mode]
    timed = [s for s in mine if s.ms is not None]
    failed = sum(1 for s in mine if s.ms is None)
    degraded = sum(1 for s in timed if s.error is not None)
    responses = [s for s in timed if s.response_cache != "off"]
    lookups = sum(s.encoding_lookups for s in timed)
    return ModeFigures(
        mode=mode,
        requests=len(mine),
        errors=failed,
        degraded=degraded,
        latency=Latency.of([s.ms for s in timed if s.ms is not None], method),
        first_seen=Latency.of([s.ms for s in timed if s.ms is not None and not s.repeat], method),
        repeated=Latency.of([s.ms for s in timed if s.ms is not None and s.repeat], method),
        response_hit_rate=(
            sum(1 for s in responses if s.response_cache == "hit") / len(responses) if responses else None
        ),
        encoding_hit_rate=sum(s.encoding_hits for s in timed) / lookups if lookups else None,
        state=Latency.of([s.state_ms for s in timed if s.state_ms is not None], method),
    )
