"""The inference service as a local background process (pid and log under .local/inference/)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from control_plane import background

STATE_DIR: Final = Path(".local") / "inference"
READY_TIMEOUT_S: Final = 180.0  # loads every served model before /ready answers


def start_service(
    port: int, state_dir: Path = STATE_DIR, timeout_s: float = READY_TIMEOUT_S
) -> tuple[str, bool]:
    """Its URL and whether this call started it (False: one already answered on ``port``)."""
    return background.start("control_plane.inference", port, state_dir, timeout_s)


def stop_service(state_dir: Path = STATE_DIR) -> bool:
    """False when none was running."""
    return background.stop(state_dir)
