"""The report: pure markdown from the load points."""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.pipeline_load.compute import LoadPoint, saturation_ratio


def render_report(title: str, header: Sequence[str], points: Sequence[LoadPoint]) -> str:
    lines = [f"# {title}", "", *header, ""]
    lines += [
        "| path | clients | answered | failed | questions/s | P50 ms | P95 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in points:
        counts = f"| {p.path} | {p.clients} | {p.answered} | {p.failed}"
        lines.append(f"{counts} | {p.qps:.1f} | {p.p50_ms:.0f} | {p.p95_ms:.0f} |")
    ratio = saturation_ratio(points, "clinical-minmax", "hybrid-minmax")
    if ratio is not None:
        lines += ["", f"clinical-minmax's best throughput is {ratio:.2f}× hybrid-minmax's (target ≥ 0.7×)."]
    failing = [p for p in points if p.failures]
    lines += ["", "## Failures", ""]
    if not failing:
        lines.append("None: every search answered.")
    for p in failing:
        lines.append(f"- {p.path} at {p.clients} clients:")
        lines += [f"  - {count} × `{reason}`" for reason, count in p.failures]
    return "\n".join(lines) + "\n"
