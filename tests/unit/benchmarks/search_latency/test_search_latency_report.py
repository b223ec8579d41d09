"""The latency report from one hand-made run: spec bars, ratios and the markdown."""

from __future__ import annotations

from unit.benchmarks.search_latency.examples import BM25, RRF
from unit.benchmarks.search_latency.examples import sample as _sample

from benchmarks.run_stamp import RunStamp
from benchmarks.search_latency.report import bar_rows, ratio_rows, render_report
from benchmarks.search_latency.samples import RunRecord, Sample
from control_plane.evaluation.configurations import EvalConfiguration


def _run(samples: list[Sample], configurations: list[EvalConfiguration]) -> RunRecord:
    return RunRecord(
        stamp=RunStamp(
            "python -m benchmarks.search_latency --queries 4",
            "test machine",
            "2026-01-01 00:01 UTC",
            1.0,
            2.0,
            60.0,
        ),
        providers="minilm: CPUExecutionProvider",
        loads=[1.0, 3.0],
        api="http://127.0.0.1:8600",
        opensearch="http://127.0.0.1:9200",
        index_pattern="chunks-nfcorpus",
        counts_before=[("chunks-nfcorpus", "beir", 6794)],
        counts_after=[("chunks-nfcorpus", "beir", 6794)],
        query_source="nfcorpus/dev",
        warmup=0,
        method="nearest-rank",
        paths=["api"],
        skipped_paths={},
        configurations=configurations,
        samples=samples,
        plot_name="latency.png",
    )


def test_bars_ratios_and_report_from_one_run() -> None:
    samples = [_sample(ms, "bm25") for ms in (10.0, 20.0, 30.0, 40.0)]
    samples += [_sample(ms, "hybrid-rrf") for ms in (100.0, 200.0, 300.0)]
    samples.append(_sample(600.0, "hybrid-rrf", degraded_by="dense_timeout"))
    run = _run(samples, [BM25, RRF])
    # hybrid P95 = 600 (rank 4 of 4) >= 500 -> fail; P50 ratio 200 / 20 = 10, P95 ratio 600 / 40 = 15.
    assert bar_rows(run) == [["hybrid-rrf", "api (the spec's measure)", "600.0", "< 500", "**FAIL**"]]
    assert ratio_rows(run) == [["api", "hybrid-rrf / bm25", "10.00", "15.00"]]
    report = render_report(run)
    assert "| api | hybrid-rrf | 4 | 200.0 | 600.0 | 600.0 | 300.0 | 600.0 | 0 | 1 |" in report
    assert "| api | hybrid-rrf | dense_timeout | 1 |" in report
    assert "unchanged during the run" in report
    assert "nearest-rank" in report
