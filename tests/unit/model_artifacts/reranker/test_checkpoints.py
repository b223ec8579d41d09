"""Checkpoint folders: complete ones only, the newest found, the oldest pruned."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_artifacts.reranker import checkpoints


def _write(folder: Path) -> None:
    (folder / checkpoints.STATE_FILE).write_bytes(b"state")


def test_latest_is_the_highest_complete_step_and_old_ones_are_pruned(tmp_path: Path) -> None:
    for step in (50, 100, 150):
        checkpoints.save(tmp_path, step, _write, keep=2)
    assert checkpoints.saved_steps(tmp_path) == [100, 150]
    assert checkpoints.latest(tmp_path) == tmp_path / "checkpoints" / "step-000150"


def test_interrupted_saves_are_not_checkpoints(tmp_path: Path) -> None:
    checkpoints.save(tmp_path, 10, _write, keep=3)
    (tmp_path / "checkpoints" / "step-000020.tmp").mkdir()  # a save that died before its rename
    (tmp_path / "checkpoints" / "step-000030").mkdir()  # a folder without its state
    assert checkpoints.saved_steps(tmp_path) == [10]


def test_a_failing_write_leaves_the_previous_checkpoint(tmp_path: Path) -> None:
    checkpoints.save(tmp_path, 10, _write, keep=1)

    def fail(folder: Path) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        checkpoints.save(tmp_path, 20, fail, keep=1)
    assert checkpoints.latest(tmp_path) == tmp_path / "checkpoints" / "step-000010"


def test_no_checkpoint_folder_means_none(tmp_path: Path) -> None:
    assert checkpoints.latest(tmp_path) is None
