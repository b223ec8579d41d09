"""The control API as a local background process (pid and log under .local/api/)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from control_plane import background

STATE_DIR: Final = Path(".local") / "api"
READY_TIMEOUT_S: Final = 60.0


def start_api(
    port: int, config: str | None = None, state_dir: Path = STATE_DIR, timeout_s: float = READY_TIMEOUT_S
) -> tuple[str, bool]:
    """Serve `python -m control_plane.api` with the settings file ``config`` (None: the environment's).
    Returns its URL and whether this call started it (False: one already answered on ``port``)."""
    extra = ("--config", config) if config else ()
    return background.start("control_plane.api", port, state_dir, timeout_s, extra_args=extra)


def stop_api(state_dir: Path = STATE_DIR) -> bool:
    """False when none was running."""
    return background.stop(state_dir)
