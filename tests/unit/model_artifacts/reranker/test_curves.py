"""Training curves: the moving mean by hand, and a run folder drawn to a PNG."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_artifacts.reranker.curves import main, moving_mean, read_curves


def test_moving_mean_averages_what_the_window_has_seen() -> None:
    assert moving_mean([4.0, 2.0, 6.0, 0.0], 2) == [4.0, 3.0, 4.0, 3.0]
    assert moving_mean([4.0, 2.0, 6.0], 5) == [4.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="window"):
        moving_mean([1.0], 0)


def _run(folder: Path) -> Path:
    steps = [
        {"step": 1, "loss": 1.8, "by_source": {"nfcorpus": 2.0, "medline": 1.6}},
        {"step": 2, "loss": 1.2, "by_source": {"nfcorpus": 1.2}},
    ]
    (folder / "log.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    validation = {
        "step": 2,
        "queries": 4,
        "depth": 5,
        "auc": 0.7,
        "ndcg10_first_stage": 0.3,
        "ndcg10_reranked": 0.35,
    }
    (folder / "validation.jsonl").write_text(json.dumps(validation) + "\n")
    return folder


def test_curves_are_read_per_source_and_drawn(tmp_path: Path) -> None:
    curves = read_curves(_run(tmp_path))
    assert curves.loss == [1.8, 1.2]
    assert curves.loss_by_source["nfcorpus"] == ([1, 2], [2.0, 1.2])
    assert curves.loss_by_source["medline"] == ([1], [1.6])
    out = tmp_path / "curves.png"
    assert main(["--run", str(tmp_path), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_folder_without_steps_is_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--run", str(tmp_path), "--out", str(tmp_path / "x.png")]) == 2
    assert "holds no training steps" in capsys.readouterr().err
