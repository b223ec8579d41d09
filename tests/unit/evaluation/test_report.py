"""The report: markdown tables with the figures given, the command and machine, and two PNG plots."""

from __future__ import annotations

from pathlib import Path

from control_plane.evaluation.report import (
    METRICS_PLOT,
    QUERY_TYPE_PLOT,
    degraded_lines,
    write_report,
)
from control_plane.evaluation.runner import SuiteResult
from control_plane.testsets.stratify import Stratification

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_report_states_command_machine_tables_and_writes_plots(
    tmp_path: Path, toy_suite: SuiteResult
) -> None:
    strata = Stratification(
        "the rule", {"exact_term": 10, "paraphrase": 1}, {"exact_term": 2, "paraphrase": 1}, ()
    )
    path = write_report(
        toy_suite,
        tmp_path,
        command="biohybrid evaluate nfcorpus/dev --limit 3",
        machine="test-host, 2 CPU cores",
        alpha=0.05,
        depth=100,
        candidate_depth=300,
        index="chunks-nfcorpus",
        stratification=strata,
        run_files=["runs/bm25.trec"],
    )
    text = path.read_text(encoding="utf-8")
    assert "- Command: `biohybrid evaluate nfcorpus/dev --limit 3`" in text
    assert "- Machine: test-host, 2 CPU cores" in text
    assert "65 s for 2 configurations" in text
    assert "| bm25 | 0.2500 | 0.5000 | 90 | 250 | 0 |" in text
    # * only where p < 0.05
    assert "| hybrid-rrf | 0.3000 * | 0.6000 | 90 | 250 | dense_timeout 1, query_failed 1 |" in text
    assert "| hybrid-rrf | +0.0500 (p=0.0100) | +0.1000 (p=0.5000) |" in text
    assert "| configuration | exact_term (n=2) | paraphrase (n=1) |" in text
    assert "| hybrid-rrf | 0.3500 | 0.2000 |" in text
    assert "| hybrid-rrf | 1.000 (0.000) [0.600] | 1.000 (0.000) | 1.000 (0.000) |" in text
    assert "| exact_term | 10 | 2 |" in text and "Rule: the rule." in text
    assert "- `runs/bm25.trec`" in text
    for plot in (METRICS_PLOT, QUERY_TYPE_PLOT):
        assert f"]({plot})" in text
        assert (tmp_path / plot).read_bytes()[:8] == PNG_SIGNATURE


def test_the_report_lists_each_degraded_query_and_why(toy_suite: SuiteResult) -> None:
    assert degraded_lines(toy_suite) == [
        "## Degraded queries",
        "",
        "A failed search is tried once more; a query that failed twice has no results and scores 0.",
        "",
        "- hybrid-rrf: 2 of 3",
        "  - `q1`: dense_timeout",
        "  - `q3`: query_failed: ConnectionError: node gone",
        "",
    ]
