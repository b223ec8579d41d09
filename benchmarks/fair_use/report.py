"""The fair-use report (pure markdown)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from benchmarks.clinical_pipelines.compute import Latency
from benchmarks.run_stamp import RunStamp, report_opening

MAX_P95_RATIO = 1.5


@dataclass(frozen=True)
class Findings:
    idle: Latency
    busy: Latency
    whole_idle: int
    whole_busy: int
    abusive: Counter[int]
    lost: Counter[str]  # the other key's component errors over both runs (dense_timeout...)
    threads: int
    chars: int
    rounds: int
    key_limits: str
    busy_share: str = ""  # api.busy_share: how busy keys share the requests in progress


def render_report(findings: Findings, run: RunStamp) -> str:
    f = findings
    ratio = f.busy.p95 / f.idle.p95
    verdict = "met" if ratio <= MAX_P95_RATIO and f.whole_busy == f.busy.n else "MISSED"
    lost = ", ".join(f"{error} x{count}" for error, count in sorted(f.lost.items())) or "none"
    abusive = ", ".join(f"{status}: {count}" for status, count in sorted(f.abusive.items()))
    return "\n".join(
        [
            *report_opening(
                "Fair use: another key's searches during one key's burst of oversized questions", run
            ),
            f"The abusive key: {f.threads} threads of {f.chars:,}-character questions, each waiting out "
            f"Retry-After after a 429; its answers: {abusive}. Key limits in force: {f.key_limits}; "
            f"shared while more than one key is busy (api.busy_share): {f.busy_share or 'not recorded'}.",
            "",
            f"The other key asks every question once (the encoding cache favours neither run); idle and "
            f"busy runs take turns {f.rounds} times, so the machine's drift falls on both.",
            "",
            "| the other key's ordinary searches | n | P50 ms | P95 ms | with every component |",
            "|---|---|---|---|---|",
            f"| idle | {f.idle.n} | {f.idle.p50:.0f} | {f.idle.p95:.0f} | {f.whole_idle} |",
            f"| during the burst | {f.busy.n} | {f.busy.p50:.0f} | {f.busy.p95:.0f} | {f.whole_busy} |",
            "",
            f"Components the other key's searches lost: {lost}.",
            "",
            f"P95 during the burst / idle: {ratio:.2f} (target <= {MAX_P95_RATIO:g}, and no search losing a "
            f"component): **{verdict}**.",
            "",
        ]
    )
