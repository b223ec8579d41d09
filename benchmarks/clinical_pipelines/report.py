"""The clinical-pipelines report: what was measured and the run's context -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.clinical_pipelines.compute import Latency, Verdict
from benchmarks.clinical_pipelines.measure import Relevance
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Findings:
    relevance: tuple[Relevance, ...]
    latency: dict[str, Latency]  # label -> client-side latency, one interleaved run
    throughput: dict[str, dict[int, float]]  # label -> clients -> requests per second
    verdicts: tuple[Verdict, ...]
    latency_questions: str  # the split and count the timed runs used


def _relevance_table(rows: Sequence[Relevance]) -> list[str]:
    labels = list(rows[0].ndcg)
    body = [
        [r.split, r.fusion, str(r.questions), *(f"{r.ndcg[label]:.4f}" for label in labels)] for r in rows
    ]
    return markdown_table(["split", "fusion", "questions", *labels], body)


def render_report(findings: Findings, context: RunStamp, index: str) -> str:
    latency_rows = [
        [label, str(v.n), f"{v.p50:.0f}", f"{v.p95:.0f}"] for label, v in findings.latency.items()
    ]
    clients = sorted({c for per in findings.throughput.values() for c in per})
    throughput_rows = [
        [label, *(f"{per[c]:.1f}" for c in clients)] for label, per in findings.throughput.items()
    ]
    verdict_rows = [[v.target, v.measured, "met" if v.met else "MISSED"] for v in findings.verdicts]
    lines = [
        *report_opening(
            "Clinical search pipelines against the README's query and /v1/search",
            context,
            [f"- index `{index}`; every request leaves `embedding` and `sparse_terms` out of `_source`"],
        ),
        "## nDCG@10",
        "(a0) the README's explicit hybrid query as sent before it set `pagination_depth`; (a) as the README "
        'sends it now (`pagination_depth` 100); (b) `{"match": {"text": ...}}` through the clinical '
        "pipeline of that fusion; (c) /v1/search's service, boosts on (its per-query-type weights under "
        "weighted fusion, the section fetch on).",
        "",
        *_relevance_table(findings.relevance),
        "",
        f"## Latency (client-side ms, one interleaved run, {findings.latency_questions})",
        "",
        *markdown_table(["path", "n", "P50", "P95"], latency_rows),
        "",
        "## Throughput (requests per second, each client sending every question once)",
        "",
        *markdown_table(["path", *(f"{c} client{'s' if c > 1 else ''}" for c in clients)], throughput_rows),
        "",
        "## Targets (fixed before the test split was read)",
        "",
        *markdown_table(["target", "measured", "verdict"], verdict_rows),
    ]
    return "\n".join(lines) + "\n"
