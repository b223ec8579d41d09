"""The pipeline-steps report: markdown, with the command and machine it ran on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.pipeline_steps.compute import StepTiming, paired_median
from benchmarks.pipeline_steps.paths import CLINICAL, PARTS, PATHS, Timed
from benchmarks.run_stamp import RunStamp
from control_plane.formulas.percentile import percentile


@dataclass(frozen=True)
class WindowRow:
    """One routing window: the pipeline that fused it, its steps, its routing step, the route model's mean
    milliseconds per call (from the inference service's metrics)."""

    window: int
    pipeline: str
    steps: list[StepTiming]
    route: StepTiming
    model_ms: float


@dataclass(frozen=True)
class Findings:
    pipeline: str
    questions: str
    windows: tuple[WindowRow, ...]
    # The paths from request to answer (paths.py), each question's answers; None: not run.
    paths: Mapping[str, Sequence[Timed]] | None = None


def render_report(findings: Findings, run: RunStamp, index: str) -> str:
    installed = [row for row in findings.windows if row.pipeline == findings.pipeline]
    shown = installed[0] if installed else max(findings.windows, key=lambda row: row.window)
    lines = [
        f"# Where `{findings.pipeline}`'s time goes",
        "",
        *run.lines(),
        f"- index `{index}`; {findings.questions}; the plain form (`match` on `text`), a page of 10",
        "- milliseconds per processor as OpenSearch reports them (`verbose_pipeline=true`); the route",
        "  model's own time from the inference service's `biohybrid_inference_request_seconds` over the",
        "  same calls: a mean per call, over both of a search's calls (the window's route and, after the cut",
        "  to the page, the page's metadata), so the last column over-counts the processor's share",
        "",
        f"## Steps of `{shown.pipeline}` (routing window {shown.window})",
        "",
        "| # | processor | n | P50 | P95 |",
        "|---|---|---|---|---|",
        *(f"| {s.position} | {s.name} | {s.n} | {s.p50:.0f} | {s.p95:.0f} |" for s in shown.steps),
        "",
        "## The routing step against the window it routes",
        "",
        "| routing window | pipeline | routing step P50 | P95 | route model mean | the rest (P50 - model) |",
        "|---|---|---|---|---|---|",
        *(
            f"| {row.window} | `{row.pipeline}` | {row.route.p50:.0f} | {row.route.p95:.0f} | "
            f"{row.model_ms:.1f} | {row.route.p50 - row.model_ms:.0f} |"
            for row in findings.windows
        ),
        "",
    ]
    if findings.paths is not None:
        lines += _path_lines(findings.paths)
    return "\n".join(lines)


def _path_lines(paths: Mapping[str, Sequence[Timed]]) -> list[str]:
    def trips(path: str) -> list[float]:
        return [t.round_trip_ms for t in paths[path]]

    def took(path: str) -> list[float]:
        return [t.took_ms for t in paths[path]]

    n = len(paths[CLINICAL])
    return [
        "## From the client's request to its answer",
        "",
        f"The same {n} questions along {len(PATHS)} paths, alternating question by question (the order",
        "rotating); each adds one part of what the clinical pipeline does to the explicit hybrid query.",
        "Round trip: the client's milliseconds; `took`: what OpenSearch reports (no response steps).",
        "",
        "| path | round trip P50 | P95 | took P50 |",
        "|---|---|---|---|",
        *(
            f"| {path} | {percentile(trips(path), 50):.0f} | {percentile(trips(path), 95):.0f} | "
            f"{percentile(took(path), 50):.0f} |"
            for path in PATHS
        ),
        "",
        "What each part adds: the median over questions of the difference between the two paths (each",
        "question's paths timed back to back):",
        "",
        "| part | paths compared | median added, ms |",
        "|---|---|---|",
        *(
            f"| {part} | {with_part} − {without} | {paired_median(trips(with_part), trips(without)):.0f} |"
            for part, with_part, without in PARTS
        ),
        "",
    ]
