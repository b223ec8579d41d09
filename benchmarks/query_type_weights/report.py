"""The per-query-type weights report: the choices and a run header -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.fusion_grid.compute import Setting
from benchmarks.query_type_weights.compute import TypeChoice
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """The run: its command, where and when."""

    run: RunStamp


def _cells(choice: TypeChoice) -> list[str]:
    return [
        choice.query_type,
        ", ".join(f"{s}: {n}" for s, n in choice.counts.items()),
        choice.best.label,
        ", ".join(f"{s}: {g:+.4f}" for s, g in choice.gains.items()),
        ", ".join(f"{s}: {p:.3f}" for s, p in choice.p_values.items()),
        "yes" if choice.holds_everywhere else "no",
    ]


def render_report(choices: Sequence[TypeChoice], current: Setting, header: Header) -> str:
    columns = [
        "query type",
        "queries per split",
        "best weights (bm25/splade/dense)",
        "gain per split",
        "p per split",
        "holds on every split",
    ]
    lines = [
        *report_opening("Per-query-type fusion weights (dev splits)", header.run),
        f"Global weights (settings fusion.weights): {current.label}.",
        "",
        *markdown_table(columns, [_cells(choice) for choice in choices]),
    ]
    return "\n".join(lines) + "\n"
