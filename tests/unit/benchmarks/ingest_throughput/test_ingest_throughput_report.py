from __future__ import annotations

from benchmarks.ingest_throughput.compute import EncodeRun, IngestRun
from benchmarks.ingest_throughput.report import Header, render_report
from benchmarks.run_stamp import RunStamp
from control_plane.ingestion.run import IngestSummary

HEADER = Header(
    RunStamp(
        "python -m benchmarks.ingest_throughput medline --limit 2000",
        "x86_64, 2 CPUs, AMD EPYC",
        "2026-11-25 10:00 UTC",
        0.5,
        2.0,
    )
)


def _run(end_to_end_s: float) -> IngestRun:
    summary = IngestSummary(
        documents=10, chunks=100, seconds=end_to_end_s, parse_s=1.0, encode_s=8.0, lookup_s=0.5, index_s=3.0
    )
    summary.write_wait_s = end_to_end_s - 9.5
    return IngestRun("medline", summary, EncodeRun(100, 9.0), ["CPUExecutionProvider"], 0.5, 2.0)


def test_the_ratio_and_its_target() -> None:
    met = _run(10.0)  # 10 chunks/s end to end over 100/9 = 11.1 encoding only: 0.90
    assert round(met.ratio, 2) == 0.9
    text = render_report(met, HEADER)
    assert "**end to end / pure encoding: 0.90** (target >= 0.90: met)" in text
    assert "11.1 chunks/s (9.0 s)" in text and "| waiting for the bulk writer | 0.5 | 5% |" in text
    assert "3.0 s of bulk requests" in text
    assert "(target >= 0.90: missed)" in render_report(_run(12.5), HEADER)  # 0.72


def test_a_sampled_encoding_and_a_kept_index_are_stated() -> None:
    summary = IngestSummary(documents=10, chunks=100, seconds=10.0, parse_s=1.0, encode_s=8.0)
    run = IngestRun("medline", summary, EncodeRun(25, 2.0, 100), ["CPU"], 0.5, 2.0, "chunks-medline-full")
    assert run.encode_only.sampled and not EncodeRun(100, 9.0, 100).sampled
    assert round(run.ratio, 2) == 0.8  # 10 chunks/s over 25 / 2 = 12.5
    text = render_report(run, HEADER)
    assert "pure encoding of an evenly spread sample of the same chunks (25 of 100)" in text
    assert "The index was kept as `chunks-medline-full`." in text
