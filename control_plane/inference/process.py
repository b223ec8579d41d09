"""The inference service as a local background process (pid and log under .local/inference/)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from control_plane import background

STATE_DIR: Final = Path(".local") / "inference"
READY_TIMEOUT_S: Final = 180.0  # loads every served model before /ready answers


def start_service(
    port: int,
    state_dir: Path = STATE_DIR,
    timeout_s: float = READY_TIMEOUT_S,
    models: tuple[str, ...] = (),
) -> tuple[str, bool]:
    """Its URL and whether this call started it (False: one already answered on ``port``). ``models``:
    the service's own model options (``--rerank ce-minilm``…; see :func:`model_options`), passed on."""
    return background.start("control_plane.inference", port, state_dir, timeout_s, models)


def model_options(dense: Sequence[str], sparse: Sequence[str], rerank: Sequence[str]) -> tuple[str, ...]:
    """The service's command-line options that serve these models (a role left empty keeps its default)."""
    return tuple(
        token
        for flag, names in (("--dense", dense), ("--sparse", sparse), ("--rerank", rerank))
        for name in names
        for token in (flag, name)
    )


def stop_service(state_dir: Path = STATE_DIR) -> bool:
    """False when none was running."""
    return background.stop(state_dir)
