"""The ingest throughput report: one run and the machine -> markdown (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from benchmarks.ingest_throughput.compute import IngestRun
from control_plane.reports.markdown import markdown_table

COMMAND = "python -m benchmarks.ingest_throughput"


@dataclass(frozen=True)
class Header:
    """The run's arguments, the machine (architecture, CPUs, CPU model) and the day."""

    arguments: tuple[str, ...]
    architecture: str
    cpus: int | None
    cpu_model: str
    day: date


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
    lines = [
        f"# Ingest throughput: {run.source}",
        "",
        f"- command: `{' '.join([COMMAND, *header.arguments])}`",
        f"- machine: {header.architecture}, {header.cpus} CPUs, {header.cpu_model}; onnxruntime providers "
        f"{run.providers}; {header.day.isoformat()}",
        f"- 1-minute load average before / after: {run.load_before:.2f} / {run.load_after:.2f} "
        "(above the CPU count means other work shared the cores)",
        f"- documents {summary.documents:,}, chunks {summary.chunks:,}, parse errors {summary.parse_errors}, "
        f"index failures {summary.index_failures}, duplicates skipped {summary.duplicates}",
        f"- **end to end: {summary.chunks_per_s:.1f} chunks/s** ({summary.seconds:.1f} s)",
        f"- pure encoding of {_encoded(run)}, same models, just before: "
        f"{run.encode_only.chunks_per_s:.1f} chunks/s ({run.encode_only.seconds:.1f} s)",
        f"- **end to end / pure encoding: {run.ratio:.2f}** (target >= 0.90: {target})",
        "",
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
