"""Load points from the calls of one run: pure, so the arithmetic is tested by hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from control_plane.formulas.percentile import percentile


@dataclass(frozen=True)
class Call:
    """One search: how long it took and, when it failed, its status (0: no answer) and message."""

    seconds: float
    status: int = 200
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.status >= 400 or self.status == 0


@dataclass(frozen=True)
class LoadPoint:
    path: str
    clients: int
    answered: int
    failed: int
    qps: float
    p50_ms: float
    p95_ms: float
    failures: tuple[tuple[str, int], ...]  # (status: message, count), most frequent first


def load_point(path: str, clients: int, calls: Sequence[Call], seconds: float) -> LoadPoint:
    """Answered questions per second over the run's wall time, and the latency of answered calls."""
    answered = [c.seconds * 1000 for c in calls if not c.failed]
    failed = [c for c in calls if c.failed]
    reasons = Counter(f"{c.status}: {c.message[:160]}" for c in failed)
    return LoadPoint(
        path=path,
        clients=clients,
        answered=len(answered),
        failed=len(failed),
        qps=len(answered) / seconds if seconds > 0 else 0.0,
        p50_ms=percentile(answered, 50) if answered else float("nan"),
        p95_ms=percentile(answered, 95) if answered else float("nan"),
        failures=tuple(reasons.most_common()),
    )


def saturation_ratio(points: Sequence[LoadPoint], path: str, baseline: str) -> float | None:
    """``path``'s best throughput over ``baseline``'s, each at its own best client count (None: missing)."""
    best = {p.path: 0.0 for p in points}
    for point in points:
        best[point.path] = max(best[point.path], point.qps)
    if not best.get(path) or not best.get(baseline):
        return None
    return best[path] / best[baseline]
