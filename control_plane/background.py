"""Start and stop a Python service module (or another local server) in the background, with a pid file
and a log file: the mechanics only.

Each service owns its own use of it (``inference/process.py``, ``api/process.py``: module, state folder,
readiness budget; ``monitoring/local.py`` runs Prometheus through :func:`spawn`). Production runs the
services under a service manager instead; this is the local, no-init-system form, used by the CLI
(`biohybrid service`, `biohybrid api`) and the integration tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from control_plane.errors import BiohybridError


class ServiceStartError(BiohybridError, RuntimeError):
    """A background service did not become ready; the message carries its last log lines."""


def is_ready(url: str, path: str = "/ready") -> bool:
    try:
        with urllib.request.urlopen(f"{url}{path}", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def spawn(
    command: list[str], state_dir: Path, name: str = "service", env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Run ``command`` in its own session, output appended to ``state_dir/<name>.log``, its pid in
    ``state_dir/<name>.pid`` (what :func:`stop` reads). ``env`` is added to this process's environment
    (a settings override such as ``BIOHYBRID__SEARCH__INDEX_PATTERN``)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    environment = {**os.environ, **env} if env else None
    with (state_dir / f"{name}.log").open("ab") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=environment
        )
    (state_dir / f"{name}.pid").write_text(str(process.pid))
    return process


def wait_ready(
    url: str,
    process: subprocess.Popen[bytes],
    state_dir: Path,
    timeout_s: float,
    *,
    name: str = "service",
    path: str = "/ready",
    what: str = "the service",
) -> None:
    """Wait until ``url + path`` answers 200; raise ServiceStartError with the log's last lines when the
    process exits first or ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if is_ready(url, path):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    log_path = state_dir / f"{name}.log"
    tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-20:])
    raise ServiceStartError(f"{what} did not become ready on {url}; last log lines:\n{tail}")


def start(
    module: str, port: int, state_dir: Path, timeout_s: float, extra_args: tuple[str, ...] = ()
) -> tuple[str, bool]:
    """Start ``python -m module`` unless a service answers /ready on ``port``; wait until it is
    ready. Returns its URL and whether this call started it (False: an existing one was reused)."""
    url = f"http://127.0.0.1:{port}"
    if is_ready(url):
        return url, False
    command = [sys.executable, "-m", module, "--port", str(port), "--log-format", "json", *extra_args]
    process = spawn(command, state_dir)
    wait_ready(url, process, state_dir, timeout_s, what=module)
    return url, True


def stop(state_dir: Path, name: str = "service") -> bool:
    """Stop a process started by :func:`spawn` (or :func:`start`); False when none was running."""
    pid_file = state_dir / f"{name}.pid"
    if not pid_file.exists():
        return False
    pid = int(pid_file.read_text().strip())
    pid_file.unlink()
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    for _ in range(60):
        if _exited(pid):
            return True
        time.sleep(0.5)
    os.kill(pid, signal.SIGKILL)
    return True


def _exited(pid: int) -> bool:
    """Whether ``pid`` is gone. A child of this very process (tests start and stop services in one
    process) stays a zombie that signal 0 still reaches until it is reaped, so reap it first."""
    try:
        reaped, _ = os.waitpid(pid, os.WNOHANG)
        if reaped == pid:
            return True
    except ChildProcessError:
        pass  # not our child: its parent (or init) reaps it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
