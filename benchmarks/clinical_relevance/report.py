"""The clinical-relevance report: each fusion method's figures, intent detection and a run header ->
markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.clinical_relevance.compute import Change, Comparison, FusionFigures, GridRow
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.clinical.intent_quality import QualityReport
from control_plane.config.search_settings import SectionRoutingSettings
from control_plane.reports.markdown import markdown_table


@dataclass(frozen=True)
class Header:
    """The run, then what it searched and with which routing settings."""

    run: RunStamp
    test_set: str
    queries: int
    index: str
    routing: SectionRoutingSettings
    plot_name: str


def _with_change(change: Change) -> str:
    return f"{change.value:.4f} ({change.value - change.reference:+.4f})"


def configuration_table(configurations: Sequence[Comparison]) -> list[str]:
    rows = [
        [c.name, _with_change(c.ndcg10), _with_change(c.p5), _with_change(c.rr_section), f"{c.p_value:.3f}"]
        for c in configurations
    ]
    return markdown_table(["configuration", "nDCG@10", "P@5", "RR§", "p"], rows)


def group_table(groups: Sequence[Comparison]) -> list[str]:
    rows = [
        [
            g.name,
            str(g.queries),
            f"{g.ndcg10.reference:.4f}",
            _with_change(g.ndcg10),
            _with_change(g.p5),
            _with_change(g.rr_section),
            f"{g.p_value:.3f}",
        ]
        for g in groups
    ]
    columns = ["group", "n", "boosts off nDCG@10", "boosts on nDCG@10", "P@5 on", "RR§ on", "p"]
    return markdown_table(columns, rows)


def grid_table(fusion: str, grid: Sequence[GridRow]) -> list[str]:
    rows = [
        [
            str(row.params.weight),
            str(row.params.min_topicality),
            str(row.params.max_documents),
            str(row.params.fetch_sections),
            f"{row.ndcg10:.4f} ({row.gain:+.4f})",
            f"{row.worst_group_gain:+.4f}",
        ]
        for row in grid
    ]
    columns = ["weight", "min_topicality", "max_documents", "fetch", "nDCG@10", "worst group Δ"]
    return [
        "",
        f"### Routing grid, {fusion} (best first; worst: the largest loss of any intent group)",
        "",
        *markdown_table(columns, rows),
    ]


def detection_lines(report: QualityReport) -> list[str]:
    """Precision and recall of intent detection, overall, per intent and per form."""

    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    counts = [("overall", report.overall), *report.per_intent.items(), *report.per_form.items()]
    _, *body = markdown_table(
        ["", "precision", "recall"], [[name, cell(c.precision), cell(c.recall)] for name, c in counts]
    )
    # The corner cell is empty: "| |" as the report has always written it (markdown_table pads it "|  |").
    return ["", "## Intent detection on this split", "", "| | precision | recall |", *body]


def render_report(header: Header, fusions: Sequence[FusionFigures], detection: QualityReport) -> str:
    routing = header.routing
    lines = [
        *report_opening(
            f"Clinical relevance: {header.test_set}",
            header.run,
            [f"- {header.queries} queries, index `{header.index}`"],
        ),
        f"Routing settings (search.section_routing): weight {routing.weight}, min_topicality "
        f"{routing.min_topicality}, max_documents {routing.max_documents}, depth {routing.depth}, "
        f"fetch_sections {routing.fetch_sections}. Cells: mean (difference from boosts off); "
        "p: paired randomization test on nDCG@10 against boosts off. "
        "RR§: reciprocal rank of the first grade-2 chunk (the right section).",
    ]
    for figures in fusions:
        lines += [
            "",
            f"## {figures.fusion}",
            "",
            *configuration_table(figures.configurations),
            "",
            *group_table(figures.groups),
        ]
    lines += detection_lines(detection)
    for figures in fusions:
        if figures.grid:
            lines += grid_table(figures.fusion, figures.grid)
    lines += ["", f"![per-intent nDCG@10, boosts off and on]({header.plot_name})"]
    return "\n".join(lines) + "\n"
