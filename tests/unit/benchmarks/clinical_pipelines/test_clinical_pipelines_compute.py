"""The clinical-pipelines benchmark's pure summaries, against hand-computed values."""

from __future__ import annotations

import pytest

from benchmarks.clinical_pipelines.compute import (
    Latency,
    latency,
    latency_verdict,
    relevance_verdicts,
    throughput,
)


def test_latency_takes_observed_nearest_rank_percentiles() -> None:
    samples = [float(v) for v in range(1, 21)]  # 1..20 ms
    assert latency(samples) == Latency(n=20, p50=10.0, p95=19.0)


def test_latency_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="no latency"):
        latency([])


def test_throughput_is_requests_over_wall_time() -> None:
    assert throughput(160, 8.0) == 20.0
    with pytest.raises(ValueError, match="positive"):
        throughput(1, 0.0)


def test_relevance_verdicts_hold_only_within_the_targets() -> None:
    close, ahead = relevance_verdicts("clinical/dev", "rrf", readme=0.50, pipeline=0.60, api=0.605)
    assert close.met and ahead.met
    assert "-0.0050" in close.measured and "+0.1000" in ahead.measured
    far, behind = relevance_verdicts("clinical/dev", "rrf", readme=0.56, pipeline=0.60, api=0.62)
    assert not far.met and not behind.met


def test_latency_verdict_compares_p95_with_the_baseline() -> None:
    baseline = Latency(n=10, p50=40.0, p95=80.0)
    assert latency_verdict(Latency(n=10, p50=50.0, p95=95.0), baseline).met
    missed = latency_verdict(Latency(n=10, p50=50.0, p95=96.0), baseline)
    assert not missed.met and "+16 ms" in missed.measured
