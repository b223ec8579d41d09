"""The ingest throughput report: one run and the machine -> markdown (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.ingest_throughput.compute import IngestRun
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """The run: its command, the machine (architecture, CPUs, CPU model), the date, the load average."""

    run: RunStamp


def render_report(run: IngestRun, header: Header) -> str:
    summary = run.summary
    total = summary.seconds or 1.0
    stages = [
        ("parse + chunk", summary.parse_s),
        ("encode (dense + SPLADE)", summary.encode_s),
        ("hash look-ups", summary.lookup_s),
        ("waiting for the bulk writer", summary.write_wait_s),
    ]
    table = markdown_table(
        ["stage (the ingest's own thread)", "seconds", "share"],
        [[name, f"{seconds:.1f}", f"{seconds / total:.0%}"] for name, seconds in stages],
        align="lrr",
    )
    target = "met" if run.ratio >= 0.9 else "missed"
    opening = [
        f"- onnxruntime providers {run.providers}",
        "- a load average above the CPU count means other work shared the cores",
        f"- documents {summary.documents:,}, chunks {summary.chunks:,}, parse errors {summary.parse_errors}, "
        f"index failures {summary.index_failures}, duplicates skipped {summary.duplicates}",
        f"- **end to end: {summary.chunks_per_s:.1f} chunks/s** ({summary.seconds:.1f} s)",
        f"- pure encoding of {_encoded(run)}, same models, just before: "
        f"{run.encode_only.chunks_per_s:.1f} chunks/s ({run.encode_only.seconds:.1f} s)",
        f"- **end to end / pure encoding: {run.ratio:.2f}** (target >= 0.90: {target})",
    ]
    lines = [
        *report_opening(f"Ingest throughput: {run.source}", header.run, opening),
        *table,
        "",
        f"The bulk writes run on a background thread beside these stages: {summary.index_s:.1f} s of bulk "
        "requests, overlapped with the next batch's encoding; only the wait for the writer adds to the run.",
        "",
        "One run on a shared machine: read the split, not the third digit.",
        "",
    ]
    if run.kept_index:
        lines[-1:-1] = [f"The index was kept as `{run.kept_index}`.", ""]
    return "\n".join(lines)


def _encoded(run: IngestRun) -> str:
    done = run.encode_only
    if not done.sampled:
        return f"the same {done.chunks:,} chunks"
    return f"an evenly spread sample of the same chunks ({done.chunks:,} of {done.of_chunks:,})"
