"""The combined ranking table: metrics recomputed from runs, compared on the queries every evaluation
searched, a query a configuration found nothing for counting 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.ranking_report.cli import main
from benchmarks.ranking_report.compute import EvaluatedRun
from benchmarks.ranking_report.report import table

QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}


def _run(label: str, configuration: str, run: dict[str, dict[str, float]], folder: str) -> EvaluatedRun:
    return EvaluatedRun(label, configuration, run, {"p50": 10.0, "p95": 20.0}, {}, Path(folder))


def test_rows_against_hybrid_minmax() -> None:
    runs = [
        _run("bge", "hybrid-minmax", {"q1": {"d1": 1.0}, "q2": {"x": 1.0, "d2": 0.5}}, "a"),
        _run("bge", "bm25", {"q1": {"d1": 1.0}}, "a"),  # nothing found for q2: 0 there
        _run("minilm", "dense", {"q1": {"x": 2.0, "d1": 1.0}, "q2": {"d2": 1.0}}, "b"),
    ]
    lines, count = table(runs, QRELS)
    assert count == 2
    # nDCG@10: minmax q1 1, q2 1/log2(3) = 0.6309; bm25 q1 1, q2 0; dense q1 0.6309, q2 1.
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in lines[2:]}
    assert float(rows["hybrid-minmax (bge)"][1]) == pytest.approx((1 + 0.6309) / 2, abs=1e-4)
    assert float(rows["bm25 (bge)"][1]) == pytest.approx(0.5, abs=1e-4)
    assert float(rows["bm25 (bge)"][4]) == pytest.approx(0.5 - (1 + 0.6309) / 2, abs=1e-4)
    assert float(rows["dense (minilm)"][4]) == pytest.approx(0.0, abs=1e-4)


def test_a_run_folder_without_runs_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "no-runs").mkdir()
    (tmp_path / "no-runs" / "results.json").write_text('{"configurations": []}', encoding="utf-8")
    for folder in (tmp_path / "absent", tmp_path / "no-runs"):
        with pytest.raises(SystemExit, match=rf"no results.json and runs/\*\.trec under {folder}"):
            main(["--run", f"nfcorpus/dev=base:{folder}", "--out", str(tmp_path / "report.md")])
    assert not (tmp_path / "report.md").exists()


def test_rows_against_the_same_configuration_of_the_first_label() -> None:
    runs = [
        _run("base", "splade", {"q1": {"d1": 1.0}, "q2": {"x": 1.0, "d2": 0.5}}, "a"),
        _run("base", "bm25", {"q1": {"x": 1.0}, "q2": {"d2": 1.0}}, "a"),
        _run("tuned", "splade", {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}, "b"),
        _run("tuned", "bm25", {"q1": {"x": 1.0}, "q2": {"d2": 1.0}}, "b"),
    ]
    lines, _ = table(runs, QRELS, against="same")
    assert "vs the same configuration" in lines[0]
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in lines[2:]}
    # splade: base q2 1/log2(3) = 0.6309, tuned 1: Δ (1 - 0.6309) / 2; bm25 identical: Δ 0.
    assert float(rows["splade (tuned)"][4]) == pytest.approx((1 - 0.6309) / 2, abs=1e-4)
    assert float(rows["bm25 (tuned)"][4]) == pytest.approx(0.0, abs=1e-4)
    assert rows["splade (base)"][4] == ""


def test_a_baseline_the_first_label_lacks_is_named() -> None:
    runs = [_run("base", "bm25", {"q1": {"d1": 1.0}}, "a"), _run("tuned", "splade", {"q1": {"d1": 1.0}}, "b")]
    with pytest.raises(ValueError, match="no splade run under 'base'"):
        table(runs, QRELS, against="same")
