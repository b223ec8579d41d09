"""Checkpoints of a training run: save atomically, find the latest complete one, keep only the newest few.

A checkpoint is ``<run>/checkpoints/step-NNNNNN/``: the model as a Hugging Face folder, tokenizer.json, and
``state.pt`` (optimizer, scheduler, step). It is written under a ``.tmp`` name and renamed when complete,
so an interrupted save never looks like a checkpoint and ``--resume`` always finds a whole one.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

STATE_FILE = "state.pt"
_NAME = re.compile(r"^step-(\d{6})$")


def checkpoint_dir(run: Path, step: int) -> Path:
    return run / "checkpoints" / f"step-{step:06d}"


def saved_steps(run: Path) -> list[int]:
    """Steps of the complete checkpoints in ``run``, ascending."""
    folder = run / "checkpoints"
    if not folder.is_dir():
        return []
    steps = []
    for path in folder.iterdir():
        match = _NAME.match(path.name)
        if match and path.is_dir() and (path / STATE_FILE).is_file():
            steps.append(int(match.group(1)))
    return sorted(steps)


def latest(run: Path) -> Path | None:
    steps = saved_steps(run)
    return checkpoint_dir(run, steps[-1]) if steps else None


def save(run: Path, step: int, write: Callable[[Path], None], keep: int) -> Path:
    """Call ``write(folder)`` on a temporary folder, rename it to the step's name, prune to ``keep``."""
    target = checkpoint_dir(run, step)
    tmp = target.with_name(target.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    write(tmp)
    if target.exists():
        shutil.rmtree(target)
    tmp.rename(target)
    for old in saved_steps(run)[:-keep]:
        shutil.rmtree(checkpoint_dir(run, old))
    return target
