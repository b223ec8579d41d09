"""The latency benchmark's pure figures: summaries, degradation codes, the spec's bars and the
hybrid / bm25 ratios."""

from __future__ import annotations

from unit.benchmarks.search_latency.examples import BM25, MINMAX, RRF, RRF_RERANK
from unit.benchmarks.search_latency.examples import sample as _sample

from benchmarks.search_latency.samples import (
    bm25_baseline,
    degradation_codes,
    ratio,
    spec_bar_ms,
    summarise,
)


def test_summary_leaves_errors_out_of_the_percentiles_and_counts_degraded_answers() -> None:
    samples = [
        _sample(10.0),
        _sample(20.0),
        _sample(30.0),
        _sample(None),
        _sample(40.0, degraded_by="dense_timeout"),
    ]
    summary = summarise(samples)
    # successful: 10, 20, 30, 40 -> P50 rank 2 = 20, P95 rank ceil(3.8) = 4 = 40, mean 25
    assert (summary.count, summary.errors, summary.degraded) == (5, 1, 1)
    assert (summary.p50, summary.p95, summary.p99, summary.mean, summary.max) == (
        20.0,
        40.0,
        40.0,
        25.0,
        40.0,
    )
    assert summarise([_sample(None)]).p50 is None


def test_degradation_codes_name_what_the_answer_lost() -> None:
    assert degradation_codes(["dense_timeout"], "timeout") == "dense_timeout,rerank_timeout"
    assert degradation_codes([], None) == ""
    assert not _sample(5.0, degraded_by=degradation_codes([], None)).degraded


def test_encode_critical_path_is_the_slowest_concurrent_component() -> None:
    assert _sample(50.0, encode_ms={"dense": 31.5, "splade": 12.0}).encode_wall_ms == 31.5
    assert _sample(50.0).encode_wall_ms is None


def test_spec_bars_and_the_bm25_baseline() -> None:
    assert [spec_bar_ms(c) for c in (BM25, RRF, MINMAX, RRF_RERANK)] == [None, 500.0, 500.0, 650.0]
    assert bm25_baseline([RRF, BM25]) == "bm25"
    assert bm25_baseline([RRF, BM25.model_copy(update={"name": "bm25+boosts", "boosts": True})]) is None
    assert ratio(300.0, 100.0) == 3.0
    assert ratio(300.0, 0.0) is None and ratio(None, 100.0) is None
