"""Growth rows, the reference step and the report, from hand-made runs at three sizes plus one extra
index."""

from __future__ import annotations

from unit.benchmarks.search_latency.examples import BM25, RRF
from unit.benchmarks.search_latency.examples import sample as _sample

from benchmarks.run_stamp import RunStamp
from benchmarks.search_latency.samples import RunRecord, Sample
from benchmarks.search_scale.compute import (
    StepRun,
    growth_rows,
    reference_of,
    series_of,
)
from benchmarks.search_scale.report import Header, render_report
from benchmarks.search_scale.steps import StepIndex, copies

SOURCE = "chunks-medline-full"


def _run(samples: list[Sample]) -> RunRecord:
    return RunRecord(
        stamp=RunStamp(
            "python -m benchmarks.search_latency", "test machine", "2026-01-01 00:01 UTC", 1.0, 2.0, 60.0
        ),
        providers="bge-small: CPUExecutionProvider",
        loads=[1.0],
        api="http://127.0.0.1:8610",
        opensearch="http://127.0.0.1:9200",
        index_pattern="x",
        counts_before=[],
        counts_after=[],
        query_source="nfcorpus/dev",
        warmup=0,
        method="nearest-rank",
        paths=["direct"],
        skipped_paths={},
        configurations=[BM25, RRF],
        samples=samples,
        plot_name="x.png",
    )


def _step(index: str, chunks: int, series: str = SOURCE, copy: bool = False) -> StepIndex:
    return StepIndex(index, chunks, 3, 2**20 * chunks // 1000, "origin", series, copy, None)


def _step_run(step: StepIndex, bm25: float, rrf: float) -> StepRun:
    # Two samples per configuration: nearest-rank P95 of two is the larger one.
    samples = [_sample(bm25 / 2, "bm25", "direct"), _sample(bm25, "bm25", "direct")]
    samples += [_sample(rrf / 2, "hybrid-rrf", "direct"), _sample(rrf, "hybrid-rrf", "direct")]
    return StepRun(step, _run(samples), f"search-scale/{step.index}.md")


RUNS = [
    _step_run(_step(f"{SOURCE}-first10000", 10000, copy=True), 10.0, 40.0),
    _step_run(_step(f"{SOURCE}-first18000", 18000, copy=True), 12.0, 50.0),
    _step_run(_step(SOURCE, 85581), 20.0, 80.0),
    _step_run(_step("chunks-nfcorpus", 6794, series="chunks-nfcorpus"), 8.0, 30.0),
]


def test_the_series_is_the_source_ascending_and_the_reference_the_closest_size() -> None:
    series = series_of(RUNS, SOURCE)
    assert [r.step.chunks for r in series] == [10000, 18000, 85581]
    assert reference_of(series, 18000).step.chunks == 18000
    assert reference_of(series, 14000).step.chunks == 10000  # 4,000 away from both: the smaller


def test_growth_is_the_largest_p95_over_the_reference_p95() -> None:
    series = series_of(RUNS, SOURCE)
    rows = growth_rows(series, reference_of(series, 18000), "nearest-rank")
    bm25, rrf = rows
    assert bm25.p95 == (10.0, 12.0, 20.0) and bm25.growth == 20.0 / 12.0 and not bm25.judged
    assert rrf.reference_p95 == 50.0 and rrf.largest_p95 == 80.0 and rrf.growth == 1.6 and rrf.judged


def test_the_report_states_sizes_growth_and_the_missed_target() -> None:
    series = series_of(RUNS, SOURCE)
    reference = reference_of(series, 18000)
    context = RunStamp("python -m benchmarks.search_scale", "vm", "2026-11-25", 1.0, 2.0)
    header = Header(context, 200, 20, "nfcorpus/dev", "nearest-rank", "bge-small: CPU", "search-scale.png")
    text = render_report(header, RUNS, series, reference, growth_rows(series, reference, "nearest-rank"))
    assert "| path | configuration | 6,794 | 10,000 | 18,000 | 85,581 |" in text
    assert "| direct | hybrid-rrf | 30.0 | 40.0 | 50.0 | 80.0 |" in text  # the P95 table
    assert "| direct | hybrid-rrf | 50.0 | 80.0 | 1.60 | **missed** |" in text  # 1.6 > 1.5
    assert "| direct | bm25 | 12.0 | 20.0 | 1.67 |  |" in text  # no target for a single component
    assert "![P95 against index size per path](search-scale.png)" in text


def test_only_the_copies_are_deleted() -> None:
    assert copies([r.step for r in RUNS]) == [f"{SOURCE}-first10000", f"{SOURCE}-first18000"]
