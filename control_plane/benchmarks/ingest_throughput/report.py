"""The ingest throughput report: one run and the machine -> markdown (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from control_plane.benchmarks.ingest_throughput.compute import IngestRun
from control_plane.reports.markdown import markdown_table

COMMAND = "python -m control_plane.benchmarks.ingest_throughput"


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
        ("index (bulk, hash look-ups)", summary.index_s),
    ]
    table = markdown_table(
        ["stage", "seconds", "share"],
        [[name, f"{seconds:.1f}", f"{seconds / total:.0%}"] for name, seconds in stages],
        align="lrr",
    )
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
        "",
        *table,
        "",
        "One run on a shared machine: read the split, not the third digit.",
        "",
    ]
    return "\n".join(lines)
