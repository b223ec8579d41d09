"""The load report: load points and the run's header -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.run_stamp import RunStamp, report_opening
from benchmarks.search_load.compute import SPEC_BAR_MS, LoadPoint, sustainable
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    run: RunStamp
    index: str
    seconds: int
    queries: str


def render_report(header: Header, points: Sequence[LoadPoint], figure: str) -> str:
    rows = [
        [
            p.path,
            str(p.users),
            f"{p.requests:,}",
            str(p.failures),
            f"{p.qps:.1f}",
            f"{p.p50_ms:.0f}",
            f"{p.p95_ms:.0f}",
            f"{p.p99_ms:.0f}",
        ]
        for p in points
    ]
    opening = [
        f"- load: locust (headless), closed-loop users started at once, {header.seconds} s per point, "
        f"queries {header.queries}; locust shares the cores with the stack it measures",
        "- `api`: `POST /v1/search` `{query, size 10, fusion_method rrf}` (bm25, SPLADE and dense; the API's "
        "candidate depth, highlights); `direct-text`: the README's plain-text query (k-NN k 100, size 10, "
        "vectors left out of `_source`) to `hybrid-rrf`, encoded by ml-commons",
        "- percentiles are locust's (response times bucketed to two significant digits above 100 ms)",
    ]
    lines = [
        *report_opening(
            f"Search load: hybrid-rrf on `{header.index}` under 1 to many concurrent clients",
            header.run,
            opening,
        ),
        *markdown_table(
            ["path", "clients", "requests", "failures", "QPS", "P50 ms", "P95 ms", "P99 ms"],
            rows,
            align="lrrrrrrr",
        ),
        "",
        f"## Highest QPS with P95 under {SPEC_BAR_MS:.0f} ms and no failures",
        "",
    ]
    for path, point in sustainable(points).items():
        if point is None:
            lines.append(f"- {path}: none of the measured client counts")
        else:
            clients = f"{point.users} client{'s' if point.users != 1 else ''}"
            lines.append(f"- {path}: {point.qps:.1f} QPS at {clients} (P95 {point.p95_ms:.0f} ms)")
    lines += ["", f"![QPS and P95 per client count]({figure})", ""]
    return "\n".join(lines)
