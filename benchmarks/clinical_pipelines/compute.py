"""Pure summaries of what was measured: latency percentiles, throughput, and the issue's targets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from control_plane.formulas.percentile import percentile

# Targets fixed before the test split was read (issue 33).
WITHIN_API: float = 0.01  # (b) at most this far below (c), nDCG@10
OVER_README: float = 0.05  # (b) at least this far above (a)
ADDED_P95_MS: float = 15.0  # (b)'s P95 over hybrid-minmax with query_text


@dataclass(frozen=True)
class Latency:
    """Client-side milliseconds of one path: sample count, P50, P95."""

    n: int
    p50: float
    p95: float


def latency(samples_ms: Sequence[float]) -> Latency:
    """P50/P95 (nearest rank: an observed latency) of a non-empty sample."""
    if not samples_ms:
        raise ValueError("no latency sample")
    return Latency(len(samples_ms), percentile(samples_ms, 50), percentile(samples_ms, 95))


def throughput(requests: int, seconds: float) -> float:
    """Requests answered per second over a run's wall time."""
    if seconds <= 0:
        raise ValueError(f"a run takes positive time, got {seconds}")
    return requests / seconds


@dataclass(frozen=True)
class Verdict:
    """One target: what was required, the measured value, whether it holds."""

    target: str
    measured: str
    met: bool


def relevance_verdicts(split: str, fusion: str, readme: float, pipeline: float, api: float) -> list[Verdict]:
    """(b) within WITHIN_API of (c), and (b) at least (a) + OVER_README, on one split and fusion."""
    return [
        Verdict(
            f"{split} {fusion}: (b) >= (c) - {WITHIN_API}",
            f"{pipeline:.4f} vs {api:.4f} ({pipeline - api:+.4f})",
            pipeline >= api - WITHIN_API,
        ),
        Verdict(
            f"{split} {fusion}: (b) >= (a) + {OVER_README}",
            f"{pipeline:.4f} vs {readme:.4f} ({pipeline - readme:+.4f})",
            pipeline >= readme + OVER_README,
        ),
    ]


def latency_verdict(pipeline: Latency, baseline: Latency) -> Verdict:
    """(b)'s P95 at most ADDED_P95_MS over the baseline's."""
    added = pipeline.p95 - baseline.p95
    return Verdict(
        f"P95 added <= {ADDED_P95_MS:g} ms",
        f"{pipeline.p95:.0f} - {baseline.p95:.0f} = {added:+.0f} ms",
        added <= ADDED_P95_MS,
    )
