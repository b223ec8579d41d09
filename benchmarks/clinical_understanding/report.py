"""The clinical-understanding report -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.clinical_understanding.compute import (
    ALL,
    Verdict,
    group_mean,
    question_groups,
)
from benchmarks.clinical_understanding.measure import SplitRun
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.clinical.intent_quality import Counts
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Findings:
    runs: tuple[SplitRun, ...]
    detection: Mapping[str, Mapping[str, Counts]]  # split -> all / intent -> counts
    verdicts: tuple[Verdict, ...]
    verdict_split: str


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def ndcg_table(runs: Sequence[SplitRun]) -> list[str]:
    """One row per group of one split: n, then each fusion's rankings."""
    labels = [(run.fusion, label) for run in runs for label in run.ndcg]
    groups = question_groups(runs[0].queries)
    order = [
        ALL,
        *sorted(g for g in groups if g.startswith("intent:")),
        *sorted(g for g in groups if g.startswith("form:")),
    ]
    rows = [
        [
            group,
            str(len(groups[group])),
            *(f"{group_mean(run.ndcg[label], groups[group]):.4f}" for run in runs for label in run.ndcg),
        ]
        for group in order
    ]
    header = ["group", "n", *(f"{fusion}: {label}" for fusion, label in labels)]
    return markdown_table(header, rows)


def detection_table(counts: Mapping[str, Counts]) -> list[str]:
    rows = [
        [name, str(c.tp), str(c.fp), str(c.fn), _fmt(c.precision), _fmt(c.recall)]
        for name, c in counts.items()
    ]
    return markdown_table(["intent", "tp", "fp", "fn", "precision", "recall"], rows)


def named_table(split: str, runs: Sequence[SplitRun]) -> list[str]:
    """Named-record questions whose answer (a grade-2 chunk) is in the top 3, per ranking."""
    named = [q.query_id for q in runs[0].queries if q.metadata.get("form") == "named_record"]
    if not named or not all(run.top3 for run in runs):
        return []
    labels = [(run, label) for run in runs for label in run.top3]
    row = [f"{sum(run.top3[label][q] for q in named)}/{len(named)}" for run, label in labels]
    return [
        "",
        f"### {split}: named-record questions answered in the top 3 (a grade-2 chunk)",
        "",
        *markdown_table([f"{run.fusion}: {label}" for run, label in labels], [row]),
    ]


def render_report(findings: Findings, context: RunStamp, index: str) -> str:
    opening = [
        f"- index `{index}`; nDCG@10 at chunk level against each split's qrels",
        "- `/v1/search off|on`: /v1/search's service with `boosts` false|true (its weights per query type"
        " under weighted fusion, the section fetch on); `direct off`: the README's explicit hybrid query"
        ' through `hybrid-<fusion>`; `direct on`: `{"match": {"text": ...}}` through `clinical-<fusion>`',
        "- weighted = min-max normalisation, weighted arithmetic mean; rrf = rank constant 60",
    ]
    lines = [
        *report_opening("Clinical understanding on natural questions", context, opening),
        f"## Targets ({findings.verdict_split})",
        "",
        *markdown_table(
            ["target", "measured", "verdict"],
            [[v.target, v.measured, "met" if v.met else "MISSED"] for v in findings.verdicts],
        ),
    ]
    splits = list(dict.fromkeys(run.split for run in findings.runs))
    for split in splits:
        runs = [run for run in findings.runs if run.split == split]
        lines += ["", f"## {split}: nDCG@10 ({len(runs[0].queries)} questions)", "", *ndcg_table(runs)]
        lines += named_table(split, runs)
        lines += [
            "",
            f"### {split}: intent detection (question, intent) pairs",
            "",
            *detection_table(findings.detection[split]),
        ]
    return "\n".join(lines) + "\n"
