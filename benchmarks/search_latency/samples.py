"""What a latency run measured, and the pure computations over it: one timed request (Sample), the
whole run (RunRecord), percentile summaries, the spec's bars and the hybrid / bm25 ratios."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean

from benchmarks.run_stamp import RunStamp
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.formulas.percentile import percentile

# The spec's bars on P95 of /v1/search.
SPEC_BARS_MS: dict[str, float] = {"hybrid": 500.0, "rerank": 650.0}

# (index, source, chunks) under the searched pattern.
IndexCounts = list[tuple[str, str, int]]


@dataclass(frozen=True)
class Sample:
    """One timed request. ``ms`` is None when it failed (``error`` says why)."""

    path: str
    configuration: str
    query_index: int
    ms: float | None
    error: str | None = None
    degraded_by: str = ""  # why the answer is degraded: component_errors and reranker_error, joined
    took_ms: float | None = None
    server_ms: float | None = None
    encode_ms: dict[str, float] = field(default_factory=dict)

    @property
    def degraded(self) -> bool:
        return bool(self.degraded_by)

    @property
    def encode_wall_ms(self) -> float | None:
        """Query encoding on the request's critical path: the components are encoded concurrently."""
        return max(self.encode_ms.values()) if self.encode_ms else None


def degradation_codes(component_errors: Sequence[str], reranker_error: str | None) -> str:
    """What an answer lost, as one string: ``dense_timeout,rerank_timeout``; empty when nothing."""
    return ",".join([*component_errors, *([f"rerank_{reranker_error}"] if reranker_error else [])])


@dataclass(frozen=True)
class RunRecord:
    """Everything the report states: the timed run (its command, machine, date, duration and load before
    and after), then what it timed and what came back."""

    stamp: RunStamp
    providers: str
    loads: list[float]  # sampled before each query
    api: str
    opensearch: str
    index_pattern: str
    counts_before: IndexCounts
    counts_after: IndexCounts
    query_source: str
    warmup: int
    method: str
    paths: list[str]
    skipped_paths: dict[str, str]
    configurations: list[EvalConfiguration]
    samples: list[Sample]
    plot_name: str
    api_keep_alive: bool = True
    stopped: str | None = None

    def of(self, path: str, configuration: str) -> list[Sample]:
        return [s for s in self.samples if s.path == path and s.configuration == configuration]


@dataclass(frozen=True)
class LatencySummary:
    count: int
    errors: int
    degraded: int
    p50: float | None
    p95: float | None
    p99: float | None
    mean: float | None
    max: float | None


def summarise(samples: Sequence[Sample], method: str = "nearest-rank") -> LatencySummary:
    """Percentiles, mean and max of the successful requests; failures and degraded answers counted."""
    values = [s.ms for s in samples if s.ms is not None]
    errors = sum(1 for s in samples if s.ms is None)
    degraded = sum(1 for s in samples if s.ms is not None and s.degraded)
    if not values:
        return LatencySummary(len(samples), errors, degraded, None, None, None, None, None)
    p50, p95, p99 = (percentile(values, p, method) for p in (50, 95, 99))
    return LatencySummary(len(samples), errors, degraded, p50, p95, p99, fmean(values), max(values))


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def spec_bar_ms(configuration: EvalConfiguration) -> float | None:
    """The spec's P95 bar: 650 ms with rerank, 500 ms for hybrid, none for a single component."""
    if configuration.rerank:
        return SPEC_BARS_MS["rerank"]
    if configuration.is_hybrid:
        return SPEC_BARS_MS["hybrid"]
    return None


def bm25_baseline(configurations: Sequence[EvalConfiguration]) -> str | None:
    """The plain bm25-only configuration hybrid ratios are taken against, if one was run."""
    return next(
        (
            c.name
            for c in configurations
            if tuple(c.components) == ("bm25",) and not c.rerank and not c.boosts
        ),
        None,
    )
