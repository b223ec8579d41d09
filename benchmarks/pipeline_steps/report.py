"""The pipeline-steps report: markdown, with the command and machine it ran on."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.pipeline_steps.compute import StepTiming
from benchmarks.run_stamp import RunStamp


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
    return "\n".join(lines)
