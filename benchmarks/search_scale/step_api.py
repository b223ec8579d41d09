"""A control API of the step's own, searching only the step's index: /v1/search reads the configured
index pattern, so the api path of a size step needs an API started on it."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from benchmarks.search_latency.stack import SetupError
from control_plane import background

STATE_DIR = Path(".local") / "search-scale"
READY_TIMEOUT_S = 90.0


@contextmanager
def api_on(
    index: str,
    port: int,
    env: Mapping[str, str] | None = None,
    state_dir: Path = STATE_DIR,
    name: str = "api",
) -> Iterator[str]:
    """Serve `python -m control_plane.api` on ``port`` with ``search.index_pattern`` = ``index`` (the
    rest of the settings as this process has them, plus the overrides in ``env``); stopped when the
    block ends, whatever happens."""
    url = f"http://127.0.0.1:{port}"
    if background.is_ready(url):
        raise SetupError(f"something already answers on {url}: stop it, or pass another --port")
    command = [sys.executable, "-m", "control_plane.api", "--port", str(port), "--log-format", "json"]
    process = background.spawn(
        command, state_dir, name=name, env={**(env or {}), "BIOHYBRID__SEARCH__INDEX_PATTERN": index}
    )
    try:
        background.wait_ready(url, process, state_dir, READY_TIMEOUT_S, name=name, what=f"the API on {index}")
        yield url
    finally:
        background.stop(state_dir, name=name)
