"""The learned-ranker report: the summary and a run header -> markdown (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.learned_ranker.compute import Importance, SplitScores, Summary, Verdict
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """The run, and how the rankers were trained."""

    run: RunStamp
    pipeline: str
    depth: int
    model: str
    train_queries: int
    train_split: str
    plot_name: str


def header_lines(header: Header) -> list[str]:
    candidates = (
        f"- candidates: pipeline {header.pipeline}, top {header.depth} chunks; cross-encoder {header.model}; "
        f"trained on {header.train_queries} {header.train_split} queries (a fifth of them for early "
        "stopping). Documents ranked by their best chunk; Δ and p (paired randomization) against the "
        "fused order."
    )
    return [
        *report_opening(
            "Learned ranker over the fused candidates (LightGBM LambdaRank)", header.run, [candidates]
        ),
        f"![nDCG@10 minus the fused order]({header.plot_name})",
        "",
    ]


def table(split: SplitScores) -> list[str]:
    rows = [[m.method, f"{m.mean:.4f}", f"{m.delta:+.4f}", f"{m.p_value:.3f}"] for m in split.methods]
    heading = [f"### {split.split} ({split.queries} queries)", ""]
    return heading + markdown_table(["method", "nDCG@10", "Δ vs fused", "p"], rows)


def verdict_line(verdict: Verdict, dev: str) -> str:
    why = [] if verdict.wins else [f"no significant win on {dev} (p {verdict.dev_p_value:.3f})"]
    why += [f"below the fused order on {split} ({delta:+.4f})" for split, delta in verdict.losses]
    outcome = "ships" if verdict.ships else "not shipped"
    return f"- {verdict.method}: **{outcome}**" + (f": {'; '.join(why)}" if why else "")


def importance_line(ranker: Importance) -> str:
    shares = ", ".join(f"{feature} {share:.2f}" for feature, share in ranker.shares)
    return f"- {ranker.name}: {ranker.trees} trees; {shares}"


def render_report(summary: Summary, header: Header) -> str:
    lines = header_lines(header)
    for split in summary.splits:
        lines += [*table(split), ""]
    lines += ["## Decision", "", *(verdict_line(v, summary.dev) for v in summary.verdicts)]
    lines += ["", "## Trees and feature importance (gain)", ""]
    lines += [importance_line(ranker) for ranker in summary.importances]
    return "\n".join(lines) + "\n"
